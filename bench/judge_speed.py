"""Judge speed benchmarks (not tests): retrieval top-5 among 10,000 chunks, and the rule engine
deciding for a tenant with 200 rules.

Usage: .venv/bin/python bench/judge_speed.py [--chunks 10000] [--rules 200] [--runs 300]
Targets (issue 4): retrieval < 20 ms; rule engine < 1 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webapp.judge.engine import compiled_for, evaluate  # noqa: E402
from webapp.judge.history import StaticHistory  # noqa: E402
from webapp.judge.retrieval import BM25Index, Chunk, HybridIndex  # noqa: E402
from webapp.judge.types import ClearanceQuery, PolicyVersion  # noqa: E402

VOCAB = (
    "payment payout refund transfer wire invoice vendor payee beneficiary amount currency limit daily "
    "review approval manager treasury export rows customer data personal email recipient domain deploy "
    "production staging branch cluster bucket instance region iam role policy salary bonus employee "
    "offer leave ticket change justification purpose encrypted backup snapshot database delete terminate "
    "sanctioned country iban prefix card charge subscription discount contract supplier audit retention "
    "access token key secret password share link document report dashboard quarterly annual"
).split()
TEMPLATES = [
    "{a} above ${n:,} require approval from the {b} team.",
    "{a} must not exceed {n:,} {c}.",
    "Agents must never {v} {a} in {b}.",
    "{a} may only be sent to {b} in the approved list.",
    "Every {a} must reference a {b} number.",
    "No more than {k} {a} per hour per agent.",
    "{a} to a new {b} need manual review.",
    "Exports of {a} data require a documented purpose and {b} sign-off.",
]
VERBS = ["delete", "export", "share", "modify", "terminate", "deploy"]


def synthetic_rule(rng: random.Random) -> str:
    """One rule in the style of the benchmark cases, with random subject words."""
    t = rng.choice(TEMPLATES)
    return t.format(
        a=rng.choice(VOCAB).capitalize() + "s",
        b=rng.choice(VOCAB),
        c=rng.choice(["USD", "EUR", "rows"]),
        n=rng.randrange(100, 1_000_000),
        k=rng.randrange(2, 100),
        v=rng.choice(VERBS),
    )


def timed(fn, runs: int) -> tuple[float, float, float]:
    """Median and 95th percentile wall time of `fn()`, and median CPU time of this thread, in ms.

    CPU time is reported too because a loaded machine stretches wall time with waiting.
    """
    wall, cpu = [], []
    for _ in range(runs):
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        wall.append((time.perf_counter() - t0) * 1000.0)
        cpu.append((time.thread_time() - c0) * 1000.0)
    wall.sort()
    return statistics.median(wall), wall[int(0.95 * (len(wall) - 1))], statistics.median(cpu)


def bench_retrieval(n_chunks: int, runs: int) -> None:
    rng = random.Random(7)
    chunks = [
        Chunk(
            f"pv{i // 50}:r{i % 50}",
            " ".join(synthetic_rule(rng) for _ in range(3)),
            {"policy_version_id": f"pv{i // 50}"},
        )
        for i in range(n_chunks)
    ]
    t0 = time.perf_counter()
    index = BM25Index(chunks)
    build = time.perf_counter() - t0
    queries = [
        "send_payment amount 12000 currency USD payee_id V-2 invoice_number",
        "export_table table customers row_limit 50000 destination_email analyst gmail.com",
        "deploy_service service checkout environment production branch main change_ticket",
        "aws.s3.delete_bucket bucket logs-archive region eu-west-1",
    ]
    qi = iter(range(10**9))
    med, p95, cpu = timed(lambda: index.search(queries[next(qi) % len(queries)], k=5), runs)
    print(
        f"retrieval  BM25 top-5 among {n_chunks:,} chunks: median {med:.2f} ms, p95 {p95:.2f} ms, "
        f"CPU {cpu:.2f} ms (index built in {build:.2f} s)"
    )

    dim = 384
    vectors = np.random.default_rng(1).standard_normal((n_chunks, dim)).astype(np.float32)
    qvec = np.random.default_rng(2).standard_normal((1, dim)).astype(np.float32)
    hybrid = HybridIndex(chunks, vectors=vectors, embed=lambda texts: qvec)
    med, p95, cpu = timed(lambda: hybrid.search(queries[next(qi) % len(queries)], k=5), runs)
    print(
        f"retrieval  hybrid (BM25 + {dim}-d vectors, RRF) top-5: median {med:.2f} ms, p95 {p95:.2f} ms, "
        f"CPU {cpu:.2f} ms (query embedding excluded)"
    )


def bench_engine(n_rules: int, runs: int) -> None:
    rng = random.Random(11)
    fixed = [
        "Single payments must not exceed $25,000.",
        "Payments above $10,000 require approval from a treasury manager.",
        "An agent may not send more than $50,000 in total per day.",
        "Payments to sanctioned countries (Iran, North Korea, Syria, Cuba) are prohibited.",
        "Every payment must reference an invoice number.",
    ]
    rules = fixed + [synthetic_rule(rng) for _ in range(n_rules - len(fixed))]
    policies = [
        PolicyVersion(
            f"p{i}",
            f"p{i}-v1",
            f"h{i}",
            "",
            tuple(rules[i * 20 : (i + 1) * 20]),
            ("send_payment", "pay_*"),
        )
        for i in range((n_rules + 19) // 20)
    ]
    t0 = time.perf_counter()
    for p in policies:
        compiled_for(p)
    compile_ms = (time.perf_counter() - t0) * 1000.0
    history = StaticHistory({"amount": 1000.0}, 3, {"payee_id": ["V-1"]})
    requests = [
        ClearanceQuery(
            "send_payment",
            {
                "amount": 800,
                "currency": "USD",
                "payee_id": "V-1",
                "invoice_number": "I-1",
                "beneficiary_country": "DE",
            },
            "a",
        ),
        ClearanceQuery(
            "send_payment",
            {"amount": 30000, "currency": "USD", "payee_id": "V-1", "invoice_number": "I-2"},
            "a",
        ),
        ClearanceQuery(
            "pay_vendor",
            {"amount": 12000, "currency": "USD", "vendor_id": "V-9", "beneficiary_country": "IR"},
            "a",
        ),
    ]
    evaluate(requests[0], policies, history)  # warm the per-tenant index cache
    n_checks = sum(len(r.checks) for p in policies for r in compiled_for(p).rules)
    qi = iter(range(10**9))
    med, p95, cpu = timed(
        lambda: evaluate(requests[next(qi) % len(requests)], policies, history), runs
    )
    print(
        f"engine     {n_rules} rules in {len(policies)} policies ({n_checks} compiled checks): "
        f"median {med:.3f} ms, p95 {p95:.3f} ms, CPU {cpu:.3f} ms per decision "
        f"(compiled once in {compile_ms:.0f} ms, then cached)"
    )


def bench_engine_spread(n_rules: int, runs: int) -> None:
    """The same 200 rules, but each policy governs its own tool: a request meets one policy."""
    rng = random.Random(11)
    rules = [synthetic_rule(rng) for _ in range(n_rules)]
    tools = [
        "send_payment",
        "create_payout",
        "issue_refund",
        "export_table",
        "send_email",
        "deploy_service",
        "aws.iam.attach_role_policy",
        "update_salary",
        "create_offer",
        "run_query",
    ]
    policies = [
        PolicyVersion(
            f"s{i}",
            f"s{i}-v1",
            f"hs{i}",
            "",
            tuple(rules[i * 20 : (i + 1) * 20]),
            (tools[i % len(tools)],),
        )
        for i in range((n_rules + 19) // 20)
    ]
    history = StaticHistory({"amount": 1000.0}, 3, {"payee_id": ["V-1"]})
    query = ClearanceQuery(
        "send_payment", {"amount": 800, "currency": "USD", "payee_id": "V-1"}, "a"
    )
    evaluate(query, policies, history)
    med, p95, cpu = timed(lambda: evaluate(query, policies, history), runs)
    print(
        f"engine     {n_rules} rules in {len(policies)} policies for {len(tools)} tools (20 govern the request): "
        f"median {med:.3f} ms, p95 {p95:.3f} ms, CPU {cpu:.3f} ms per decision"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--rules", type=int, default=200)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    bench_retrieval(args.chunks, args.runs)
    bench_engine(args.rules, args.runs)
    bench_engine_spread(args.rules, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
