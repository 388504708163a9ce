"""The long fuzz run of the tools (see bench/README.md, "fuzz_tools.py").

    python bench/fuzz_tools.py --inputs 100000 [--jobs 2] [--seed S] [--findings DIR]
    python bench/fuzz_tools.py --replay TARGET:SEED:INDEX

Prints, per target, the inputs tried, their rate and the findings by class; exits 1 if there
was any finding. The harness itself is tests/fuzz/ (the default test suite runs it briefly).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz.campaign import Settings, Tally, replay, run_campaign  # noqa: E402
from fuzz.seeds import TARGETS  # noqa: E402


def report(tally: Tally) -> str:
    lines = [f"{'target':8} {'inputs':>8} {'inputs/s':>9} {'findings':>9}"]
    for t in TARGETS:
        n = tally.inputs.get(t, 0)
        if n:
            rate = n / max(tally.seconds[t], 1e-9)  # per worker: time spent on this target's inputs
            found = sum(len(v) for k, v in tally.findings.items() if k.startswith(f"[{t}]"))
            lines.append(f"{t:8} {n:8,} {rate:9.1f} {found:9,}")
    total = sum(tally.inputs.values())
    lines.append(f"{'all':8} {total:8,} {total / max(tally.wall_s, 1e-9):9.1f}   "
                 f"(wall {tally.wall_s:.0f} s; {tally.real} inputs also run as real processes)")
    lines.append(f"finding classes: {len(tally.findings)}")
    for key, hits in sorted(tally.findings.items()):
        t, i = hits[0]
        lines.append(f"  {len(hits):6,}x {key}  (first: --replay {t}:{{seed}}:{i})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=int, default=100_000, help="inputs in all (default 100000)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="campaign seed (default: the time)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated subset of " + ",".join(TARGETS))
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per input (default 10)")
    ap.add_argument("--memory-mb", type=int, default=3072, help="address-space limit per worker (default 3072)")
    ap.add_argument("--real-every", type=int, default=500,
                    help="run one input in N also as real processes (default 500; 0: never)")
    ap.add_argument("--findings", type=Path, default=Path("fuzz-findings"),
                    help="where reproducers are written (default ./fuzz-findings)")
    ap.add_argument("--replay", metavar="TARGET:SEED:INDEX", help="run one input again, in this process")
    args = ap.parse_args(argv)
    if args.replay:
        target, seed, index = args.replay.split(":")
        case, outcome = replay(target, int(seed), int(index))
        print(f"case: {case}\ncodes: {outcome.codes}\nfinding: {outcome.finding}\n{outcome.detail}")
        return 1 if outcome.finding else 0
    cfg = Settings(seed=args.seed, inputs=args.inputs, targets=tuple(args.targets.split(",")),
                   jobs=args.jobs, budget_s=args.budget, memory_bytes=args.memory_mb << 20,
                   real_every=args.real_every, findings_dir=args.findings)
    print(f"seed {cfg.seed}, {cfg.inputs:,} inputs over {', '.join(cfg.targets)}, {cfg.jobs} workers",
          flush=True)
    last = [time.monotonic()]

    def progress(tally: Tally) -> None:
        if time.monotonic() - last[0] > 30:
            last[0] = time.monotonic()
            done = sum(tally.inputs.values())
            print(f"  {done:,} inputs, {len(tally.findings)} finding classes", flush=True)

    tally = run_campaign(cfg, progress)
    print(report(tally).replace("{seed}", str(cfg.seed)))
    if tally.findings:
        print(f"reproducers in {args.findings}/")
    return 1 if tally.findings else 0


if __name__ == "__main__":
    sys.exit(main())
