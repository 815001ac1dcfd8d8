"""Run every script in examples/ as a user runs it and record what it shows,
for the documentation site: its printed output (``docs/examples/<name>.txt``)
and, for a script with a ``--plot`` option, its picture
(``docs/examples/<name>.png``). Both are committed; the site shows them next
to the script's source.

Why recorded and not run by the site build: the full runs train networks
(the PINN and MAML examples take from tens of seconds to minutes), need
matplotlib, and give the same pictures whatever the docs say, while the
build must stay fast and the tests already run every example (quick mode,
tests/test_examples.py). Rerun this after changing an example:

    pip install -e ".[examples]" && python scripts/render_examples.py [name ...]

(seconds for most scripts, a few minutes in all; seeds are fixed, times
printed by the scripts vary from machine to machine).
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
OUT = os.path.join(ROOT, "docs", "examples")


# examples whose default run is too long for a recording (10^7 points over a
# dask cluster: minutes); their recorded output is the quick run's, the
# README gives the full run's figures
QUICK = {"pinn_dask": ["--quick", "--no-progress"]}


def render(name):
    """Run examples/<name>.py in a scratch directory; write its output and picture."""
    path = os.path.join(EXAMPLES, name + ".py")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    args = list(QUICK.get(name, []))
    picture = os.path.join(OUT, name + ".png")
    if '"--plot"' in source:
        args += ["--plot", picture]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, path] + args, cwd=tmp, env=env,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"examples/{name}.py failed:\n{proc.stdout}\n{proc.stderr}")
    # paths of the scratch directory mean nothing to a reader
    text = proc.stdout.replace(picture, f"{name}.png")
    text = re.sub(re.escape(tempfile.gettempdir()) + r"/[^/\s]+", "<scratch-dir>", text)
    with open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8") as f:
        f.write(text)
    drew = "--plot" in args
    if drew:
        shrink(picture)
    made = " and " + os.path.relpath(picture, ROOT) if drew else ""
    print(f"examples/{name}.py: wrote {os.path.relpath(OUT, ROOT)}/{name}.txt{made}")


def shrink(path):
    """Re-save a PNG with a 256-colour palette (about a third of the size for
    plots; Pillow comes with matplotlib). Left as it is without Pillow."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=256)
    small.save(path, optimize=True)


def main(names):
    os.makedirs(OUT, exist_ok=True)
    names = names or sorted(fn[:-3] for fn in os.listdir(EXAMPLES) if fn.endswith(".py"))
    for name in names:
        render(name)


if __name__ == "__main__":
    main(sys.argv[1:])
