"""Your own account in the dashboard (change your password), and the favicon."""

from __future__ import annotations

from tests.dashboard.conftest import PASSWORD, Dashboard, text_of

NEW_PASSWORD = "a much longer new passphrase"


def change(dash, current: str, new: str, again: str | None = None):  # noqa: ANN001, ANN201
    return dash.post(
        "/dashboard/settings/password",
        {
            "current_password": current,
            "new_password": new,
            "confirm_password": new if again is None else again,
        },
    )


def test_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/x-icon"
    assert response.data[:4] == b"\x00\x00\x01\x00"  # an ICO header


def test_every_role_changes_their_own_password_and_other_sessions_end(app, signed_in, people):
    viewer = signed_in("viewer")
    elsewhere = signed_in("viewer")  # the same person on another device
    page = text_of(viewer.get("/dashboard/settings/password"))
    assert "Change your password" in page and people["viewer"] in page

    assert "is not right" in text_of(change(viewer, "wrong password!!", NEW_PASSWORD))
    assert "does not match" in text_of(change(viewer, PASSWORD, NEW_PASSWORD, "something else"))
    too_short = change(viewer, PASSWORD, "short")
    assert too_short.status_code == 422 and "12" in text_of(too_short)
    same = change(viewer, PASSWORD, PASSWORD)
    assert same.status_code == 422

    done = change(viewer, PASSWORD, NEW_PASSWORD)
    assert done.status_code == 302
    assert "Your password is changed" in text_of(viewer.get(done.headers["Location"]))
    assert viewer.get("/dashboard/reviews").status_code == 200  # this session goes on
    assert elsewhere.get("/dashboard/reviews").status_code == 303  # the other one ended

    fresh = Dashboard(app.test_client())
    assert fresh.sign_in(people["viewer"], PASSWORD).status_code == 401
    assert fresh.sign_in(people["viewer"], NEW_PASSWORD).status_code == 302


def test_the_password_form_needs_csrf_and_a_sign_in(app, signed_in):
    owner = signed_in("owner")
    no_token = owner.client.post(
        "/dashboard/settings/password",
        data={
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "confirm_password": NEW_PASSWORD,
        },
    )
    assert no_token.status_code == 400
    assert owner.get("/dashboard/reviews").status_code == 200  # nothing changed, still signed in
    anonymous = app.test_client().get("/dashboard/settings/password")
    assert (
        anonymous.status_code in (302, 303)
        and "/dashboard/sign-in" in anonymous.headers["Location"]
    )
