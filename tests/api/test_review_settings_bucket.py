"""PUT /review-settings with `minimum_confidence_bucket` (CONTRACT §7, the TypeScript client 0.4)."""

from __future__ import annotations

import pytest

from tests.api.test_foundation import assert_problem


def put(client, tenant, body):
    return client.put("/review-settings", json=body, headers=tenant.headers)


@pytest.mark.parametrize(
    ("bucket", "score"),
    [("extra_high", 0.95), ("high", 0.80), ("medium", 0.60), ("low", 0.01), ("none", 0.0)],
)
def test_a_bucket_sets_the_score_to_its_lower_cut_off(client, tenant, bucket, score):
    body = put(client, tenant, {"minimum_confidence_bucket": bucket}).get_json()
    assert body["minimum_confidence_score"] == score
    assert body["minimum_confidence_bucket"] == bucket
    assert client.get("/review-settings", headers=tenant.headers).get_json() == body


def test_the_bucket_follows_a_score_set_directly(client, tenant):
    body = put(client, tenant, {"minimum_confidence_score": 0.7}).get_json()
    assert body["minimum_confidence_bucket"] == "medium"


def test_bad_buckets_and_both_fields_are_refused_and_change_nothing(client, tenant, sql):
    for bad in (
        {"minimum_confidence_bucket": "very_high"},
        {"minimum_confidence_bucket": 0.9},
        {"minimum_confidence_bucket": None, "minimum_confidence_score": None},
        {"minimum_confidence_bucket": "high", "minimum_confidence_score": 0.8},
    ):
        response = put(client, tenant, bad)
        assert_problem(response, 400, "invalid_request")
    assert client.get("/review-settings", headers=tenant.headers).get_json()[
        "minimum_confidence_score"
    ] == pytest.approx(0.8)
    changes = "SELECT count(*) FROM ledger_events WHERE action_category = 'settings_changed'"
    assert sql(changes).scalar() == 0
