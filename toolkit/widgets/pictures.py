"""Pictures with a text alternative: an ``<img>`` tag, a captioned ``<figure>``, and a
matplotlib figure that displays itself as one (notebooks/AUTHORING.md, "Accessibility").

Standard library only, so the figures package and every view can share it without ipywidgets.
"""

from __future__ import annotations

import base64
import html
import io

__all__ = ["describe", "figure_html", "img_html"]


def img_html(png: bytes, alt: str, style: str = "max-width:100%;height:auto") -> str:
    """A PNG as an ``<img>`` with its text alternative, for an HTML output or widget.

    Used by: toolkit/widgets/_base.py.
    """
    data = base64.b64encode(png).decode("ascii")
    return f"<img src='data:image/png;base64,{data}' alt='{html.escape(alt, quote=True)}' style='{style}'>"


def figure_html(png: bytes, alt: str, caption: str = "") -> str:
    """An HTML ``<figure>`` holding ``png`` as an ``<img>`` with ``alt`` as its text
    alternative, and ``caption`` under it: what a screen reader reaches in JupyterLab and in
    an exported page.

    Used by: toolkit/figures/__init__.py (show) and describe below.
    """
    cap = f"<figcaption style='text-align:center'><em>{html.escape(caption)}</em></figcaption>" if caption else ""
    return f"<figure class='toolkit-figure' style='margin:0.5em 0'>{img_html(png, alt)}{cap}</figure>"


def describe(fig, alt: str, caption: str = ""):
    """Give a matplotlib figure its text alternative: when a notebook shows ``fig``, the output
    is :func:`figure_html` (PNG, ``alt``, ``caption``) and its plain text is ``alt``. Returns
    ``fig``. Put the key numbers of the plot in ``alt`` (AUTHORING.md, "Accessibility").

    Used by: toolkit/widgets/accuracy.py (notebook 01's chart).
    """

    def _repr_mimebundle_(include=None, exclude=None):
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
        return {
            "text/html": figure_html(buffer.getvalue(), alt, caption),
            "text/plain": caption + (": " if caption else "") + alt,
        }

    fig._repr_mimebundle_ = _repr_mimebundle_
    fig.toolkit_alt = alt
    return fig
