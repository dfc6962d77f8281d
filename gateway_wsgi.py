"""WSGI entry point of the tool gateway: ``gunicorn gateway_wsgi:app`` (``make gateway``)."""

from gateway import create_gateway

app = create_gateway()
