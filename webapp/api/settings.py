"""Review settings (spec §2.5, CONTRACT §7)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.parsing import json_body, validated
from webapp.api.schemas import ReviewSettingsReply, ReviewSettingsUpdate, reply
from webapp.services import settings

settings_api = Blueprint("settings", __name__)
protect_with_tenant_key(settings_api)


@settings_api.get("/review-settings")
def get_review_settings():
    return jsonify(reply(ReviewSettingsReply, settings.review_settings(current_client_id())))


@settings_api.put("/review-settings")
def put_review_settings():
    change = validated(ReviewSettingsUpdate, json_body()).command()
    updated = settings.update_review_settings(current_client_id(), change, actor="api")
    return jsonify(reply(ReviewSettingsReply, updated))
