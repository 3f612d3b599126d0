"""Where a benchmark's JSON goes: its ``--json`` path and, on the lent GPU machine (``$OUT`` set by the
device runner), a copy under ``$OUT`` by the same name, which comes back with the run."""
import json
import os


def save_json(payload, path) -> None:
    """Write ``payload`` to ``path`` (its folder made), and to ``$OUT`` too when that is set."""
    targets = [path] + ([os.path.join(os.environ["OUT"], os.path.basename(path))] if os.environ.get("OUT") else [])
    for target in targets:
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        with open(target, "w") as handle:
            json.dump(payload, handle, indent=1)
    print(f"wrote {path}")
