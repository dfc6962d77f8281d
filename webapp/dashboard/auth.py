"""Sign-in and sign-out with Flask-Login, throttled per account and per address."""

from __future__ import annotations

from flask import Blueprint, Flask, flash, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user

from webapp.dashboard.forms import SignInForm
from webapp.dashboard.htmx import hx_redirect
from webapp.dashboard.throttle import SignInThrottle, ThrottleUnavailable
from webapp.extensions import login_manager
from webapp.models import User
from webapp.runtime import vault
from webapp.services import tenants, users

auth_pages = Blueprint("auth", __name__)


@auth_pages.route("/sign-in", methods=["GET", "POST"])
def sign_in():
    form = SignInForm()
    if request.method == "GET":
        if current_user.is_authenticated:
            return redirect(safe_next(request.args.get("next")))
        form.next.data = request.args.get("next", "")
        return render_template("auth/sign_in.html", form=form)
    if not form.validate_on_submit():
        return render_template("auth/sign_in.html", form=form), 400

    email, address = form.email.data, request.remote_addr or "unknown"
    throttle = SignInThrottle(vault().redis)
    try:
        # Counted before the password is checked, in one atomic step: parallel guesses cannot
        # slip past the limit between a check and a count.
        wait = throttle.attempt(email, address)
    except ThrottleUnavailable:
        return _refused(form, "Sign-in is unavailable right now. Try again shortly.", 503)
    if wait:
        return _refused(form, f"Too many failed sign-ins. Try again in {_minutes(wait)}.", 429)
    user = tenants.check_password(email, form.password.data)
    if user is None:
        return _refused(form, "Email or password is not right.", 401)
    throttle.succeeded(email, address)
    # A fresh session at sign-in: nothing from before (a planted CSRF token, say) survives.
    session.clear()
    login_user(user)
    return redirect(safe_next(form.next.data))


@auth_pages.post("/sign-out")
@login_required
def sign_out():
    # Ends every session of this user, so a copy of the cookie opens nothing afterwards.
    users.end_sessions(current_user.user_id)
    logout_user()
    session.clear()
    flash("You are signed out.", "info")
    return redirect(url_for("dashboard.auth.sign_in"))


def install_login(app: Flask) -> None:
    """Tell Flask-Login how to load a dashboard user and where sign-in lives."""
    login_manager.login_view = "dashboard.auth.sign_in"
    login_manager.user_loader(_load_user)
    login_manager.unauthorized_handler(_unauthorized)


def safe_next(target: str | None) -> str:
    """Only a path inside the dashboard: never an absolute or scheme-relative URL."""
    overview = url_for("dashboard.overview.index")
    if not target or not target.startswith("/dashboard") or target.startswith("//"):
        return overview
    if "\\" in target or any(ord(c) < 32 for c in target):
        return overview
    return target


def _load_user(session_id: str) -> User | None:
    # Checked on every request: a disabled user, or a session from before sign-out or a
    # password change, ends here.
    return users.load_session_user(session_id)


def _unauthorized():
    target = url_for("dashboard.auth.sign_in", next=request.full_path.rstrip("?"))
    return hx_redirect(target)


def _refused(form: SignInForm, message: str, status: int):
    form.password.data = ""
    return render_template("auth/sign_in.html", form=form, error=message), status


def _minutes(seconds: int) -> str:
    minutes = max(1, -(-seconds // 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"
