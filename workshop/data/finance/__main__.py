"""`python -m workshop.data.finance [--write]`: print the generated counts and digest; --write re-pins them."""
from __future__ import annotations

import argparse
import json

from .generator import GENERATOR_VERSION, MANIFEST, SEED, digest, generate


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m workshop.data.finance")
    parser.add_argument("--write", action="store_true", help="re-pin MANIFEST.json to the current output")
    args = parser.parse_args()
    rows = generate()
    pinned = {"generator_version": GENERATOR_VERSION, "seed": SEED, "algorithm": "sha256",
              "sha256": digest(rows), "counts": {t: len(r) for t, r in rows.items()}}
    print(json.dumps(pinned, indent=2))
    if args.write:
        MANIFEST.write_text(json.dumps(pinned, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {MANIFEST}")


main()
