"""WSGI entry point of the standalone judge service:
``gunicorn -w $JUDGE_UVICORN_WORKERS judge_wsgi:app``."""

from webapp.judge_service import create_judge_app

app = create_judge_app()
