"""A few SVG elements written as text: the pictures use rectangles, circles, lines, paths and text only,
so a drawing library would add a dependency and no capability."""

from __future__ import annotations

from html import escape


def attributes(attrs: dict[str, object]) -> str:
    """``key="value"`` pairs (underscores in keys become dashes; None values are left out)."""
    return "".join(
        f' {key.rstrip("_").replace("_", "-")}="{escape(_number(value))}"'
        for key, value in attrs.items()
        if value is not None
    )


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.1f}".removesuffix(".0")
    return str(value)


def tag(name: str, content: str = "", **attrs: object) -> str:
    """An element; ``content`` is markup (escape text with :func:`text`)."""
    if content:
        return f"<{name}{attributes(attrs)}>{content}</{name}>"
    return f"<{name}{attributes(attrs)}/>"


def text(x: float, y: float, words: str, **attrs: object) -> str:
    """A text element with ``words`` escaped."""
    return tag("text", escape(words), x=x, y=y, **attrs)


def document(width: float, height: float, content: str, **attrs: object) -> str:
    """A standalone SVG document that scales to its container."""
    return tag(
        "svg",
        content,
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_number(width)} {_number(height)}",
        width=width,
        height=height,
        **attrs,
    )
