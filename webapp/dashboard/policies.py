"""Policies: the list, creation (form, pasted text, upload, wiki page), versions, diff, deactivation."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from webapp.api.schemas import GlossaryBody
from webapp.dashboard.forms import (
    ActionForm,
    GlossaryForm,
    PastePolicyForm,
    PolicyForm,
    TryPolicyForm,
    UploadPolicyForm,
    WikiImportForm,
    lines,
    show_service_errors,
)
from webapp.dashboard.htmx import page_or_fragment
from webapp.dashboard.present import line_diff
from webapp.dashboard.roles import allowed_to
from webapp.errors import InvalidInput, NotFound
from webapp.runtime import vault
from webapp.services import glossary, ingestion, judging, policies, policy_trials

policy_pages = Blueprint("policies", __name__, url_prefix="/policies")
# The glossary lives beside the policies, not under them: '/policies/<policy_id>' would hide a
# policy named 'glossary'.
glossary_pages = Blueprint("glossary", __name__, url_prefix="/glossary")

# How a new policy comes in; each has its own form on the "new policy" page.
SOURCES = (
    ("form", "Write rules"),
    ("paste", "Paste text"),
    ("upload", "Upload a file"),
    ("wiki", "Import a wiki page"),
)


@policy_pages.get("")
@allowed_to("read")
def index():
    return render_template(
        "policies/index.html", rows=policies.list_policies(current_user.client_id)
    )


@policy_pages.get("/new")
@allowed_to("manage")
def new():
    via = request.args.get("via", "form")
    if via not in dict(SOURCES):
        via = "form"
    return render_template(
        "policies/new.html", via=via, sources=SOURCES, **_blank_forms(form=_next_version_form())
    )


@policy_pages.post("/new/form")
@allowed_to("manage")
def create_from_form():
    form = PolicyForm()
    if form.validate_on_submit():
        body = {
            "policy_id": form.policy_id.data.strip(),
            "description": form.description.data or "",
            "rules": lines(form.rules.data),
            "tools": lines(form.tools.data),
        }
        try:
            content = policies.parse_content(body)
            result = policies.register(
                current_user.client_id, content, source="form", actor=current_user.email
            )
        except InvalidInput as error:
            show_service_errors(form, error)
        else:
            version = result.version
            flash(
                f"Version {version.version} of {version.policy_id} is active."
                if result.created
                else "The content is unchanged; no new version was made.",
                "success",
            )
            return redirect(url_for(".detail", policy_id=version.policy_id))
    return render_template(
        "policies/new.html", via="form", sources=SOURCES, **_blank_forms(form=form)
    ), 422


@policy_pages.post("/new/paste")
@allowed_to("manage")
def create_from_paste():
    form = PastePolicyForm()
    if form.validate_on_submit():
        return _submit(
            form,
            "paste_form",
            lambda: ingestion.submit_text(
                current_user.client_id,
                policy_id=form.policy_id.data.strip(),
                text=form.text.data,
                tools=lines(form.tools.data),
                actor=current_user.email,
            ),
        )
    return _new_again("paste", paste_form=form)


@policy_pages.post("/new/upload")
@allowed_to("manage")
def create_from_upload():
    form = UploadPolicyForm()
    if form.validate_on_submit():
        upload = form.document.data
        return _submit(
            form,
            "upload_form",
            lambda: ingestion.submit_document(
                current_user.client_id,
                policy_id=form.policy_id.data.strip(),
                filename=upload.filename or "upload",
                content_type=upload.mimetype,
                data=upload.read(),
                tools=lines(form.tools.data),
                actor=current_user.email,
            ),
        )
    return _new_again("upload", upload_form=form)


@policy_pages.post("/new/wiki")
@allowed_to("manage")
def create_from_wiki():
    form = WikiImportForm()
    if form.validate_on_submit():
        return _submit(
            form,
            "wiki_form",
            lambda: ingestion.submit_wiki_page(
                current_user.client_id,
                policy_id=form.policy_id.data.strip(),
                url=form.url.data.strip(),
                tools=lines(form.tools.data),
                actor=current_user.email,
            ),
        )
    return _new_again("wiki", wiki_form=form)


@policy_pages.get("/<policy_id>/indexing/<job_id>")
@allowed_to("read")
def indexing(policy_id: str, job_id: str):
    """The indexing progress: a page, or (for HTMX) the widget that polls itself until done."""
    job = ingestion.get_job(current_user.client_id, job_id)
    return page_or_fragment(
        "policies/indexing.html", "policies/_progress.html", policy_id=policy_id, job=job
    )


@policy_pages.get("/<policy_id>")
@allowed_to("read")
def detail(policy_id: str):
    policy, versions = policies.get_policy(current_user.client_id, policy_id)
    selected = _pick_version(versions, request.args.get("version"), policy.current_version_id)
    # The compiler alone, not the engine: the web tier does not load retrieval (see judging).
    from webapp.judge.compiler import compile_policy
    from webapp.judge.vocabulary import Glossary

    terms = glossary.terms(current_user.client_id)
    judge_policy = judging.to_judge_policy(selected) if selected else None
    compiled = (
        compile_policy(judge_policy, Glossary.of(terms) if terms else None) if selected else None
    )
    examples = (
        policy_trials.run_examples(current_user.client_id, judge_policy, list(selected.examples))
        if selected and selected.examples
        else []
    )
    return render_template(
        "policies/detail.html",
        policy=policy,
        versions=versions,
        selected=selected,
        compiled=compiled,
        examples=examples,
        example_cases=list(selected.examples or []) if selected else [],
        try_form=TryPolicyForm(),
        # Rules the engine cannot check go to the language model when one is configured.
        text_rules_go_to="the language model" if vault().config.eval_model else "review",
        action_form=ActionForm(),
    )


@policy_pages.get("/<policy_id>/diff")
@allowed_to("read")
def diff(policy_id: str):
    policy, versions = policies.get_policy(current_user.client_id, policy_id)
    if not versions:
        abort(404)
    by_number = {v.version: v for v in versions}
    newest = versions[0].version
    to_number = _int_arg("to", newest)
    from_number = _int_arg("from", to_number - 1)
    if from_number not in by_number or to_number not in by_number:
        from_number, to_number = (newest - 1, newest) if newest > 1 else (newest, newest)
    old, new = by_number[from_number], by_number[to_number]
    return render_template(
        "policies/diff.html",
        policy=policy,
        versions=versions,
        old=old,
        new=new,
        rules=line_diff(list(old.rules), list(new.rules)),
        tools=line_diff(list(old.tools), list(new.tools)),
    )


@policy_pages.post("/<policy_id>/deactivate")
@allowed_to("manage")
def deactivate(policy_id: str):
    if ActionForm().validate_on_submit():
        policies.deactivate(current_user.client_id, policy_id, actor=current_user.email)
        flash(
            f"{policy_id} is deactivated; it no longer governs requests. Its versions stay for audit.",
            "success",
        )
    return redirect(url_for(".detail", policy_id=policy_id))


def _submit(form, slot: str, submit):  # noqa: ANN001, ANN202
    """Run an ingestion submission; field errors go back on the form, success to its progress."""
    try:
        submission = submit()
    except InvalidInput as error:
        show_service_errors(form, error, {"file": "document"})
        return _new_again(slot.removesuffix("_form"), **{slot: form})
    version = submission.version
    if submission.job is None:
        flash("The rules are the same as the current version; no new version was made.", "info")
        return redirect(url_for(".detail", policy_id=version.policy_id))
    return redirect(url_for(".indexing", policy_id=version.policy_id, job_id=submission.job.job_id))


def _new_again(via: str, **forms):  # noqa: ANN003, ANN202
    return render_template(
        "policies/new.html", via=via, sources=SOURCES, **_blank_forms(**forms)
    ), 422


def _next_version_form() -> PolicyForm | None:
    """With ``?policy_id=``, the rule form starts from that policy's current version."""
    policy_id = request.args.get("policy_id", "")
    if not policy_id:
        return None
    try:
        policy, versions = policies.get_policy(current_user.client_id, policy_id)
    except NotFound:
        return None
    current = next((v for v in versions if v.policy_version_id == policy.current_version_id), None)
    form = PolicyForm(formdata=None)
    form.policy_id.data = policy_id
    if current is not None:
        form.description.data = current.description
        form.rules.data = "\n".join(current.rules)
        form.tools.data = "\n".join(current.tools)
    return form


def _blank_forms(**given) -> dict:  # noqa: ANN003
    return {
        "form": given.get("form") or PolicyForm(formdata=None),
        "paste_form": given.get("paste_form") or PastePolicyForm(formdata=None),
        "upload_form": given.get("upload_form") or UploadPolicyForm(formdata=None),
        "wiki_form": given.get("wiki_form") or WikiImportForm(formdata=None),
    }


def _pick_version(versions: list, wanted: str | None, current_id: str | None):  # noqa: ANN202
    if wanted and (wanted.isascii() and wanted.isdigit()):
        for version in versions:
            if version.version == int(wanted):
                return version
        abort(404)
    for version in versions:
        if version.policy_version_id == current_id:
            return version
    return versions[0] if versions else None


def _int_arg(name: str, default: int) -> int:
    value = request.args.get(name, "")
    return int(value) if (value.isascii() and value.isdigit()) else default


@policy_pages.post("/<policy_id>/try")
@allowed_to("read")
def try_policy(policy_id: str):
    """The "Try it" panel: a dry run of the shown version on one tool call; records nothing."""
    import json

    from webapp.judge.types import ClearanceQuery

    policy, versions = policies.get_policy(current_user.client_id, policy_id)
    selected = _pick_version(versions, request.args.get("version"), policy.current_version_id)
    form = TryPolicyForm()
    result, error = None, ""
    if selected is None:
        abort(404)
    if form.validate_on_submit():
        try:
            args = json.loads(form.tool_args.data or "{}")
        except ValueError:
            args = None
        if not isinstance(args, dict):
            error = "Tool arguments must be a JSON object."
        else:
            result = policy_trials.dry_run(
                current_user.client_id,
                judging.to_judge_policy(selected),
                ClearanceQuery(form.tool_name.data.strip(), args, "dashboard-try"),
            )
    else:
        error = "Give a tool name."
    return page_or_fragment(
        "policies/try.html",
        "policies/_try_result.html",
        policy=policy,
        selected=selected,
        form=form,
        result=result,
        error=error,
    )


@glossary_pages.route("", methods=["GET", "POST"])
@allowed_to("read")
def glossary_page():
    """The tenant glossary: named categories the judge decides membership through."""
    form = GlossaryForm()
    client_id = current_user.client_id
    if request.method == "POST":
        if not can_manage():
            abort(403)
        if form.validate_on_submit():
            parsed: dict[str, list[str]] = {}
            for line in lines(form.terms.data or ""):
                term, _, values = line.partition("=")
                parsed[term.strip()] = [v.strip() for v in values.split(",") if v.strip()]
            try:
                # The API's model validates the editor's terms too: one set of rules.
                terms = GlossaryBody.model_validate({"terms": parsed}).terms
                glossary.replace(client_id, terms, actor=current_user.email)
            except InvalidInput as exc:
                show_service_errors(form, exc)
            else:
                flash("Glossary saved.")
                return redirect(url_for("dashboard.glossary.glossary_page"))
    else:
        form.terms.data = "\n".join(
            f"{term} = {', '.join(values)}" for term, values in glossary.terms(client_id).items()
        )
    return render_template(
        "policies/glossary.html", form=form, builtin=glossary.BUILTIN, can_edit=can_manage()
    )


def can_manage() -> bool:
    from webapp.dashboard.roles import can

    return can("manage")
