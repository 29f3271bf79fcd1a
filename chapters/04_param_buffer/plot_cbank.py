#!/usr/bin/python3
"""Draws chapter 04's figure of vadd's parameter buffer in constant bank 0.

    /usr/bin/python3 chapters/04_param_buffer/plot_cbank.py

needs Debian's python3-matplotlib and writes vadd_cbank0.svg next to this
script, from the course's committed listings of vadd's cubins,
labs/03_binary_containers/fixtures/vadd.sm_*.cubin.cuobjdump-elf.txt
(`cuobjdump -elf`, CUDA 13.0; that folder's README says how they were made):
for each architecture, the EIATTR_KPARAM_INFO records (each parameter's
ordinal, offset and size), EIATTR_PARAM_CBANK (where in bank 0 the buffer
starts, and its size) and the size of the section .nv.constant0 (the bank as
the cubin declares it). The parameters' names are those of the kernel's
source, labs/02_reading_sass/kernels/vadd.cu.
"""

import re
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LISTINGS = ROOT / "labs" / "03_binary_containers" / "fixtures"
KERNEL = ROOT / "labs" / "02_reading_sass" / "kernels" / "vadd.cu"
OUT = HERE / "vadd_cbank0.svg"
plt.rcParams["svg.hashsalt"] = "launchlab"  # the same data give the same file
plt.rcParams["svg.fonttype"] = "none"
COLORS = ["#4c72b0", "#55a868", "#c44e52", "#8172b2", "#ccb974", "#64b5cd"]


def parameters_of_source():
    """vadd's parameters as (type, name), in order, from its definition."""
    match = re.search(r"__global__\s+void\s+vadd\s*\(([^)]*)\)", KERNEL.read_text())
    if not match:
        raise SystemExit(f"plot_cbank: no __global__ void vadd(...) in {KERNEL}")
    params = []
    for declaration in match.group(1).split(","):
        *kind, name = declaration.replace("*", "* ").split()
        params.append((" ".join(kind).replace(" *", "*"), name))
    return params


def read_listing(path):
    """One cubin's facts: the parameters (ordinal, offset, size), the buffer's base and size, the bank's size."""
    text = path.read_text()
    section = text[text.index(".nv.info._Z4vaddPKfS0_Pfi\n") :]
    params = sorted(
        (int(o, 16), int(off, 16), int(size, 16))
        for o, off, size in re.findall(r"Ordinal : (0x[0-9a-f]+)\s+Offset\s*: (0x[0-9a-f]+)\s+Size\s*: (0x[0-9a-f]+)", section)
    )
    cbank = re.search(r"EIATTR_PARAM_CBANK\s+Format:\s+\S+\s+Value:\s+0x[0-9a-f]+ (0x[0-9a-f]+)", section)
    packed = int(cbank.group(1), 16)  # size in the high 16 bits, offset in the low 16
    # The section table's row: index, offset, size, entsize, align, type, ...
    bank = re.search(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+PROGBITS\s.*\s\.nv\.constant0\._Z4vadd", text, re.M)
    return params, packed & 0xFFFF, packed >> 16, int(bank.group(1), 16)


def main():
    names = parameters_of_source()
    cubins = {}
    for path in sorted(LISTINGS.glob("vadd.sm_*.cubin.cuobjdump-elf.txt"), key=lambda p: int(p.name.split(".")[1][3:])):
        cubins[path.name.split(".")[1]] = read_listing(path)
    if not cubins:
        raise SystemExit(f"plot_cbank: no vadd.sm_*.cubin.cuobjdump-elf.txt in {LISTINGS}")
    layouts = {tuple(params) for params, *_ in cubins.values()}
    if len(layouts) != 1:
        raise SystemExit("plot_cbank: the architectures' parameter layouts differ; the figure draws one")
    params = layouts.pop()
    buffer_size = max(offset + size for _, offset, size in params)

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 1.4 + 0.42 * len(cubins)),
                                      gridspec_kw={"height_ratios": [1.1, 0.42 * len(cubins)]})
    # The buffer itself, byte by byte: the same on every architecture.
    for ordinal, offset, size in params:
        kind, name = names[ordinal]
        top.add_patch(Rectangle((offset, 0), size, 1, facecolor=COLORS[ordinal % len(COLORS)], edgecolor="black", lw=0.8))
        top.text(offset + size / 2, 0.5, f"{name}\n{kind}, {size} bytes", ha="center", va="center", fontsize=7.5, color="white")
    top.set_xlim(0, buffer_size)
    top.set_ylim(0, 1)
    top.set_yticks([])
    top.set_xticks(sorted({o for _, o, _ in params} | {buffer_size}))
    top.tick_params(labelsize=7)
    top.set_title(f"vadd's parameter buffer: {buffer_size} bytes (EIATTR_KPARAM_INFO: offset of each parameter)", fontsize=8.5)

    # Constant bank 0 of each architecture, and where the buffer lands in it.
    widest = max(bank for *_, bank in cubins.values())
    for row, (arch, (_, base, size, bank)) in enumerate(cubins.items()):
        bottom.add_patch(Rectangle((0, row + 0.15), base, 0.7, facecolor="#e6e6e6", edgecolor="#888888", lw=0.6))
        bottom.text(base / 2, row + 0.5, f"0x0 to 0x{base - 1:x}: before the parameters", ha="center", va="center", fontsize=6.5)
        for ordinal, offset, length in params:
            bottom.add_patch(Rectangle((base + offset, row + 0.15), length, 0.7,
                                       facecolor=COLORS[ordinal % len(COLORS)], edgecolor="black", lw=0.4))
        bottom.text(base + size + 8, row + 0.5, f"c[0x0][0x{base:x}] to c[0x0][0x{base + size - 1:x}]; bank 0x{bank:x} bytes",
                    ha="left", va="center", fontsize=6.5)
    bottom.set_xlim(0, widest + 0x1a0)
    bottom.set_ylim(len(cubins), 0)
    bottom.set_yticks([r + 0.5 for r in range(len(cubins))], list(cubins), fontsize=7)
    ticks = sorted({base for _, base, _, _ in cubins.values()} | {0})
    bottom.set_xticks(ticks, [f"0x{t:x}" for t in ticks], fontsize=7)
    bottom.set_xlabel("offset in constant bank 0 (bytes)", fontsize=7.5)
    bottom.set_title("Constant bank 0 of vadd's cubin, per architecture (EIATTR_PARAM_CBANK, .nv.constant0)", fontsize=8.5)
    for ax in (top, bottom):
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    fig.tight_layout()
    fig.savefig(OUT, metadata={"Date": None})
    plt.close(fig)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
