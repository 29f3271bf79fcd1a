"""What the chapters' figure scripts share: the committed measurement files
read one way, and figures written so that the same data give the same file.

A measurement file is CSV with '#' lines before its header: `# key: value`
lines (the GPU, the driver, the command that made it) and free text, the
first line of which names the source under a figure.

A script in chapters/<slug>/ imports it from the folder above:

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import measurements  # noqa: E402

Needs Debian's python3-matplotlib (apt-get install -y python3-matplotlib)
for the figures; reading needs nothing.
"""

import csv
from pathlib import Path


def read_measurements(path):
    """The rows of a measurement file as dicts, its '#' lines without the
    '# ' (in order), and its `# key: value` lines as a dict (the first value
    of a key wins)."""
    comments, lines = [], []
    for line in Path(path).read_text().splitlines():
        (comments if line.startswith("#") else lines).append(line)
    meta = {}
    for comment in comments:
        key, sep, value = comment[1:].strip().partition(": ")
        if sep:
            meta.setdefault(key, value)
    return list(csv.DictReader(lines)), [c.lstrip("# ") for c in comments], meta


def save_figure(fig, path, source=""):
    """Writes the figure to path with the data's source in small print under
    it. SVG without a date: the scripts set svg.hashsalt, so the same data
    give the same bytes."""
    import matplotlib.pyplot as plt

    fig.text(0.01, 0.01, source, fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def save_missing(path, what, data_name):
    """The figure that stands in for a measurement not made yet: what it
    would show, and the data file that is missing."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"{what}\nnot measured yet ({data_name} is missing)", ha="center", va="center")
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
