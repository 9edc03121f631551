"""A propositional network's summary as a picture: how many nodes of each kind, and how many gates at
each depth (the longest path from a base proposition or input), which is how many gate evaluations
deep a state update is."""

from __future__ import annotations

from collections import Counter

from gdl.ground.propnet import PropNet
from gdl.view.svg import document, tag, text

_KINDS = (
    ("base", "#4c78a8"),
    ("input", "#f58518"),
    ("and", "#54a24b"),
    ("or", "#b279a2"),
    ("not", "#e45756"),
)


def depths(net: PropNet) -> list[int]:
    """The depth of each gate; an argument on a cycle not yet met counts as depth 0."""
    depth = [0] * net.size
    for gate, args in enumerate(net.args):
        node = net.first_gate + gate
        depth[node] = 1 + max((depth[a] for a in args if 0 <= a < net.size), default=0)
    return depth[net.first_gate :]


def network_svg(net: PropNet, name: str) -> str:
    """Bars of the node counts by kind, and a histogram of the gates by depth."""
    sizes = net.sizes()
    parts = [
        text(
            16,
            22,
            f"{name}: propositional network, {net.size} nodes, {sizes['edges']} edges",
            font_size=15,
            font_weight="bold",
        )
    ]
    largest = max((sizes[k] for k, _ in _KINDS), default=1) or 1
    for row, (kind, colour) in enumerate(_KINDS):
        y = 40 + row * 24
        length = 360 * sizes[kind] / largest
        parts.append(text(16, y + 14, kind))
        parts.append(
            tag(
                "rect",
                x=70,
                y=y,
                width=max(length, 1),
                height=18,
                fill=colour,
                class_="bar",
                data_kind=kind,
                data_count=sizes[kind],
            )
        )
        parts.append(text(76 + length, y + 14, str(sizes[kind])))
    layers = Counter(depths(net))
    top = 40 + len(_KINDS) * 24 + 30
    parts.append(text(16, top, f"gates by depth (deepest {max(layers, default=0)})", font_weight="bold"))
    height = 120
    most = max(layers.values(), default=1)
    count = max(layers, default=0)
    width = max(2.0, min(24.0, 440 / max(count, 1)))
    for depth, gates in sorted(layers.items()):
        bar = height * gates / most
        parts.append(
            tag(
                "rect",
                x=16 + (depth - 1) * width,
                y=top + 10 + height - bar,
                width=max(width - 1, 1),
                height=bar,
                fill="#72b7b2",
                class_="layer",
                data_depth=depth,
                data_count=gates,
            )
        )
    parts.append(text(16, top + height + 28, "depth 1"))
    parts.append(text(16 + max(count - 1, 0) * width, top + height + 28, str(count)))
    return document(
        max(520, 40 + count * width),
        top + height + 40,
        "".join(parts),
        font_family="sans-serif",
        font_size=12,
        class_="network",
    )
