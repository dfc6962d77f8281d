"""Judge benchmark: run every case of bench/judge_cases/ and print agreement and unsafe approvals.

Usage: .venv/bin/python bench/judge.py [--verbose] [--threshold 0.80] [--set NAME | --file PATH]
Exit status 1 when any approval is unsafe (approved where deny or review was expected).

`--set main` (the default) runs every file of bench/judge_cases/ except the held-out sets;
`--set holdout_2` runs only bench/judge_cases/holdout_2.json, the held-out set written before the
engine's redesign (see bench/README.md: it is run, never tuned on); `--set holdout_3` runs the
lead's blind set, written apart from the engine's authors (bench/README.md says how it was used);
`--set holdout_8` and `--set holdout_9` run the sixth session's blind sets, committed after their
first and final blind runs were recorded (they are seen now, and tuned on from then on);
`--set holdout_11` … `holdout_63` run the seventh to fifteenth sessions' blind sets, committed
after their first and final runs were recorded (bench/README.md); `--set dev_<name>` runs a
helper's development cases, kept out of main.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webapp.judge.engine import evaluate  # noqa: E402
from webapp.judge.history import StaticHistory  # noqa: E402
from webapp.judge.types import ClearanceQuery, PolicyVersion, Verdict  # noqa: E402

CASES_DIR = ROOT / "bench" / "judge_cases"
THRESHOLD = 0.80
# Held-out sets run on their own: their figures are reported apart from the tuned-on cases.
HOLDOUT_SETS = (
    "holdout_2",
    "holdout_3",
    "holdout_4",
    "holdout_8",
    "holdout_9",
    "holdout_11",
    "holdout_12",
    "holdout_13",
    "holdout_14",
    "holdout_15",
    "holdout_16",
    "holdout_17",
    "holdout_18",
    "holdout_19",
    "holdout_20",
    "holdout_21",
    "holdout_22",
    "holdout_23",
    "holdout_24",
    "holdout_25",
    "holdout_26",
    "holdout_27",
    "holdout_28",
    "holdout_29",
    "holdout_30",
    "holdout_31",
    "holdout_32",
    "holdout_33",
    "holdout_34",
    "holdout_35",
    "holdout_36",
    "holdout_37",
    "holdout_38",
    "holdout_39",
    "holdout_40",
    "holdout_41",
    "holdout_42",
    "holdout_43",
    "holdout_44",
    "holdout_45",
    "holdout_46",
    "holdout_47",
    "holdout_48",
    "holdout_49",
    "holdout_50",
    "holdout_51",
    "holdout_52",
    "holdout_53",
    "holdout_54",
    "holdout_55",
    "holdout_56",
    "holdout_57",
    "holdout_58",
    "holdout_59",
    "holdout_60",
    "holdout_61",
    "holdout_62",
    "holdout_63",
)
# Development sets run on their own (`--set dev_11`, `dev_12`, `dev_mis`, `dev_mis2`, `dev_red2`,
# `dev_red3`, `dev_jann`) while their figures are far from the main set's: dev_11 and dev_12 were written
# before the engine change they measure (dev_11 in domains no other file covers, dev_12 in the
# everyday ones, each policy in another staff style); dev_mis and dev_mis2 hold rules written to be
# misread, dev_red2 and dev_red3 red-team cases beside a satisfied rule, so that a misreading shows
# as an approval; dev_jdeny holds denials the engine turned into review, beside near-misses
# where the unseen word narrows the rule; dev_jann explicit argument bindings ('(fee_status =
# "paid")') and their near-misses; dev_jsat conditions clearly false for the request; dev_jstate
# states, holds on named values and except-lists; dev_jred4 a red team of rules labelled
# understood but misread; dev_jauto thresholds stated as what the agent may do alone, tiers and caps
# keyed by another argument; dev_jred8 a red team of the scope of a negation or an exclusion
# ('not on our allowlist', 'other than', 'non-EU', 'country not in {US, CA}'); dev_jred9 a red team
# of everyday payment, refund, chargeback, SSO, export and deploy rules (two caps, headed lists,
# thresholds with requirements, 'or higher', time windows, '10k'/'1.5m'); dev_jred10 a red team
# of the tenth session's readings (an agent id in another argument, a second act in one tool,
# stand-in references, a permission 'for' a qualifier, another thing's status, a git ref). Their
# first runs are recorded in bench/README.md.
# dev_jred21 red-teams the date and network readings (dates not placed, windows stretched past
# their end, prefixes written loosely, held codes in free text, restated named bounds).
# dev_jred23 red-teams the glossed-subject gate ('Sterile products (product_class = sterile): …')
# and the gloss readings: values written another way, wider subjects, clauses on the others
# (first run on 9fb824c: 44.9 %, 36 unsafe approvals; final 95.7 %, 0 unsafe).
# dev_jred28 red-teams understood readings in unseen domains (vet, ticketing, car rental, freight, dental,
# schools, coworking, wine): a money span ("1 month's rent") read as a duration, a minutes suffix, a
# slash of place codes, a recipient qualifier, a total after the act, a dash-closed list
# (first run on c74e044: 56.5 %, 4 unsafe approvals; final 66.7 %, 0 unsafe, 0 false denials).
# dev_jred26 red-teams a subject qualifier and a condition shown by a flag written "Y"/"N", a kind of the
# act (credit/debit, manual, permanent, recurring, partial, bulk) and two rules of one policy interacting.
# dev_jred25 red-teams numeric bounds written tersely and the argument each binds (a price per unit
# read as the thing it prices, a currency bound on a noun read as a count, another thing's %).
# dev_jred30 red-teams agent permissions after a bound (refusals in other words, acts that are not the
# act) and lookalike mail domains: first run 13/32, 17 unsafe; final 26/36 (4 mail cases added after), 0 unsafe.
# dev_jred31 red-teams a numeric bound bound to the wrong argument (a name after or beside its bound,
# a described thing that is an argument's name, two bounds on two arguments) beside a money decoy.
APART_SETS = (
    "dev_jred34",  # jred34: near-miss red team of this session's new readings (lists after must be, names before bounds, units in subjects, jappr tails)
    "dev_jappr",  # jappr: terse shapes of holdout_60/61 (labels before names, flags, tails), other domains
    # dev_jred33 red-teams unseen domains (library, waste, staffing, pawn, gym, parking, venue,
    # research office): a floor read as a cap, a bound per hour read as a value, a day window
    # dropped, an approver read as a subject word. First run 23/111, 6 unsafe, 6 false denials;
    # final 36/140 (29 cases added after; 19 unsafe on the start engine), 0 unsafe, 0 false denials.
    "dev_jred33",
    # jred32: misreadings in unseen domains (angle keep-outs, bare "m", unit letters, named counters,
    # time bans, off-register); 69 cases on 2cb9e4c: 21/69, 12 unsafe; final 25/69, 0 unsafe, 0 false denials
    "dev_jred32",
    "dev_jred31",
    "dev_jred30",
    "dev_jred29",
    "dev_jred28",
    "dev_jred27",
    "dev_jred26",
    "dev_jred25",
    "dev_jred24",
    "dev_jred23",
    "dev_jred21",
    "dev_jred20",
    "dev_jred22",
    "dev_jrange",
    "dev_jident",
    "dev_jpair",
    "dev_jlist2",
    "dev_jdate",
    "dev_jred19",
    "dev_jred15",
    "dev_jred16",
    "dev_jred17",
    "dev_jred18",
    "dev_jagent2",
    "dev_jparenarg",
    "dev_jtier",
    "dev_11",
    "dev_mis",
    "dev_12",
    "dev_mis2",
    "dev_red2",
    "dev_red3",
    "dev_jdeny",
    "dev_jann",
    "dev_jsat",
    "dev_jstate",
    "dev_jred4",
    "dev_jred5",
    "dev_jnote",
    "dev_jlist",
    "dev_jflag",
    "dev_jcount",
    "dev_jevid",
    "dev_jauto",
    "dev_jcond",
    "dev_jfield",
    "dev_jred6",
    "dev_jred7",
    "dev_jred8",
    "dev_jred9",
    "dev_jvalue",
    "dev_jsame",
    "dev_jreq",
    "dev_jwhose",
    "dev_jagent",
    "dev_jterse",
    "dev_jfreeze",
    "dev_jred11",
    "dev_jred10",
    "dev_jred12",
    "dev_jgloss",
    "dev_jinline",
    "dev_jlabel",
    "dev_jparen",
    "dev_jrel",
    "dev_jred13",
    "dev_jred14",
    "dev_jscope",
    "dev_jhold",
)


def load_cases(directory: Path = CASES_DIR, case_set: str = "main") -> list[dict]:
    """The cases of `case_set`, in file then list order.

    "main" is every JSON file of `directory` but the held-out sets; a held-out set's name is the
    stem of its file.
    """
    cases: list[dict] = []
    for path in sorted(directory.glob("*.json")):
        if (case_set == "main" and path.stem in HOLDOUT_SETS + APART_SETS) or (
            case_set != "main" and path.stem != case_set
        ):
            continue
        cases.extend(json.loads(path.read_text(encoding="utf-8")))
    return cases


def policy_version(p: dict) -> PolicyVersion:
    """A PolicyVersion for a case policy; the hash is over its canonical JSON, as CONTRACT §6 says."""
    content = {
        "policy_id": p["policy_id"],
        "description": p.get("description", ""),
        "rules": p["rules"],
        "tools": p.get("tools", []),
    }
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return PolicyVersion(
        p["policy_id"],
        f"pv_{digest[:16]}",
        digest,
        content["description"],
        tuple(p["rules"]),
        tuple(content["tools"]),
    )


def outcome(verdict: Verdict, threshold: float = THRESHOLD) -> str:
    """The clearance status a verdict leads to once the tenant threshold is applied."""
    if verdict.decision == "deny":
        return "denied"
    if verdict.decision == "review" or verdict.confidence < threshold:
        return "pending_review"
    return "approved"


def run_case(case: dict, threshold: float = THRESHOLD) -> tuple[str, Verdict]:
    """Judge one case; returns (outcome, verdict)."""
    query = ClearanceQuery(
        case["tool_name"],
        case["tool_args"],
        case.get("agent_id", "agent"),
        policy_hint=case.get("policy_hint", ""),
    )
    extra = {}
    if case.get("glossary") and "glossary" in inspect.signature(evaluate).parameters:
        extra["glossary"] = case["glossary"]
    verdict = evaluate(
        query,
        [policy_version(p) for p in case["policies"]],
        StaticHistory.from_dict(case.get("history")),
        **extra,
    )
    return outcome(verdict, threshold), verdict


def run_all(cases: list[dict], threshold: float = THRESHOLD) -> dict:
    """Run every case; returns totals, per-category agreement, unsafe approvals and the misses."""
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    unsafe = []
    for case in cases:
        got, verdict = run_case(case, threshold)
        ok = got == case["expected"]
        per_cat[case["category"]][0] += ok
        per_cat[case["category"]][1] += 1
        if not ok:
            row = {
                "id": case["id"],
                "expected": case["expected"],
                "got": got,
                "reason_code": verdict.reason_code,
                "confidence": verdict.confidence,
                "reason": verdict.reason,
            }
            misses.append(row)
            if got == "approved":
                unsafe.append(row)
    agree = sum(v[0] for v in per_cat.values())
    should_approve = sum(1 for c in cases if c["expected"] == "approved")
    false_denials = [m for m in misses if m["expected"] == "approved" and m["got"] == "denied"]
    return {
        "total": len(cases),
        "agree": agree,
        "should_approve": should_approve,
        "false_denials": false_denials,
        "per_category": dict(per_cat),
        "misses": misses,
        "unsafe": unsafe,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", "-v", action="store_true", help="print every disagreement")
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument(
        "--set", dest="case_set", default="main", choices=("main", *HOLDOUT_SETS, *APART_SETS)
    )
    parser.add_argument("--file", type=Path, help="run this one case file instead of a set")
    args = parser.parse_args()
    if args.file:
        cases = json.loads(args.file.read_text(encoding="utf-8"))
    else:
        cases = load_cases(case_set=args.case_set)
    result = run_all(cases, args.threshold)
    total, agree = result["total"], result["agree"]
    print(
        f"cases: {total}  agreement: {agree}/{total} = {100.0 * agree / max(total, 1):.1f} %  (threshold {args.threshold:.2f})"
    )
    for cat, (ok, n) in sorted(result["per_category"].items()):
        print(f"  {cat:<12} {ok:>3}/{n:<3} {100.0 * ok / n:5.1f} %")
    print(f"unsafe approvals: {len(result['unsafe'])}")
    print(
        f"false denials: {len(result['false_denials'])} of {result['should_approve']} should-approve cases"
    )
    if args.verbose or result["unsafe"]:
        for m in result["misses"]:
            flag = "UNSAFE " if m["got"] == "approved" else ""
            print(
                f"  {flag}{m['id']}: expected {m['expected']}, got {m['got']} ({m['reason_code']}, {m['confidence']}) {m['reason'][:160]}"
            )
    return 1 if result["unsafe"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
