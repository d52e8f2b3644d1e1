"""What every live view shares: colours, a figure that redraws fast, and error handling.

A view is a pure computation (``compute``) plus a thin drawing layer (``draw``). ``refresh``
runs both whenever a control changes. A mistake in what a student typed raises
:class:`InputError`; the view shows its sentence and keeps the last good state and picture.

Where widgets cannot be drawn (GitHub, nbconvert, a JupyterLab that does not trust a notebook
it has just opened), a saved view would show only a line of text. So a view displays itself
with a static copy beside the widget (:func:`static_bundle`): the same picture, text and
control settings as HTML and PNG. Live frontends draw the widget; the others pick the copy.

ipywidgets and matplotlib are imported inside the functions that need them, so importing this
module costs nothing and works without them.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Iterable
from typing import Any

from .palette import INK, OKABE_ITO, TEXT, THEME_INK, THEME_INK_MUTED
from .pictures import img_html

__all__ = [
    "OKABE_ITO",
    "FONT",
    "InputError",
    "LiveFigure",
    "LiveView",
    "Picture",
    "esc",
    "need_widgets",
    "static_bundle",
    "static_png",
]

# OKABE_ITO (colours for marks) and the text colours come from palette.py, the one palette.
# font sizes in points, large enough to read from the back of a lecture room
FONT = {"title": 15, "label": 13, "tick": 12, "legend": 11.5, "note": 11}
LINE_WIDTH = 2.5


class InputError(ValueError):
    """Something a student typed cannot be used; the message says what to change.

    Notebook 10, through widgets.passk_explorer.
    """


def esc(value: Any) -> str:
    """Text made safe to put inside HTML.

    Notebook 10, through widgets.passk_explorer.
    """
    return html.escape(str(value), quote=True)


def need_widgets():
    """Import ipywidgets, or say plainly how to get it.

    Used by: toolkit/widgets/_base.py.
    """
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "The live views need ipywidgets and matplotlib. Install them with "
            "`pip install -e '.[widgets]'` (or run `make lab`)."
        ) from None
    enable_colab_widgets()
    return ipywidgets


_COLAB_DONE: list[bool] = []


def enable_colab_widgets(modules: Any = None) -> bool:
    """In Colab, switch on its custom widget manager once, so ipywidgets views draw there
    (Colab's own call, ``google.colab.output.enable_custom_widget_manager()``); elsewhere do
    nothing. Returns True when it was switched on by this call.

    Used by: toolkit/widgets/_base.py.
    """
    import sys

    colab = (sys.modules if modules is None else modules).get("google.colab")
    enable = getattr(getattr(colab, "output", None), "enable_custom_widget_manager", None)
    if enable is None or (modules is None and _COLAB_DONE):
        return False
    enable()
    _COLAB_DONE.append(True)
    return True


class LiveFigure:
    """One matplotlib figure kept for the life of a view, rendered to PNG bytes.

    Drawing text (titles, tick labels, legends) is most of matplotlib's cost, and it rarely
    changes while a student drags a slider. So the figure is drawn once without its
    ``animated`` artists, that picture is kept, and each update only pastes it back and draws
    the artists that moved (the "blitting" technique of matplotlib's animation guide).

    ``render(key)`` keeps one such background per ``key``: pass a key that names everything
    static (a title, the axis categories), and switching back to a key seen before costs no
    full draw. :meth:`invalidate` forgets them all.

    Notebook 10, through widgets.passk_explorer.
    """

    MAX_BACKGROUNDS = 8

    def __init__(self, width: float = 9.0, height: float = 4.4, dpi: int = 100) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.fig = Figure(figsize=(width, height), dpi=dpi, facecolor="white")
        self.canvas = FigureCanvasAgg(self.fig)
        self.moving: list = []
        self._backgrounds: dict = {}
        self.png = b""
        self.full_draws = 0

    def animate(self, *artists) -> list:
        """Mark artists as the ones that change on each update; returns them."""
        for a in artists:
            a.set_animated(True)
            self.moving.append(a)
        return list(artists)

    def forget(self, artists: Iterable) -> None:
        """Stop drawing these artists (after removing them from their axes)."""
        gone = set(map(id, artists))
        self.moving = [a for a in self.moving if id(a) not in gone]

    def invalidate(self) -> None:
        self._backgrounds.clear()

    def render(self, key: Any = None) -> bytes:
        background = self._backgrounds.get(key)
        if background is None:
            self.canvas.draw()  # animated artists are left out of a full draw
            if len(self._backgrounds) >= self.MAX_BACKGROUNDS:
                self._backgrounds.clear()
            self._backgrounds[key] = self.canvas.copy_from_bbox(self.fig.bbox)
            self.full_draws += 1
        else:
            self.canvas.restore_region(background)
        renderer = self.canvas.get_renderer()
        for a in self.moving:
            if a.get_visible() and (a.axes is None or a.axes.get_visible()):
                a.draw(renderer)
        self.png = self._encode()
        return self.png

    def _encode(self) -> bytes:
        """The canvas as an RGB PNG with light compression (level 1 took about two thirds
        of the default level's time here, for a file 5% larger). The same pixels always give
        the same bytes, so the same controls give the same picture."""
        from PIL import Image  # a dependency of matplotlib

        w, h = self.canvas.get_width_height()
        image = Image.frombuffer("RGBA", (w, h), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        image.convert("RGB").save(out, format="png", compress_level=1)
        return out.getvalue()

    def save(self, path: str) -> None:
        """Write the last rendered picture to a PNG file."""
        with open(path, "wb") as fh:
            fh.write(self.png or self.render())


class Picture:
    """A view's plot: an HTML widget holding an ``<img>`` whose ``alt`` says what the plot
    shows and its key numbers (an ipywidgets ``Image`` has no alt). ``value`` is the PNG,
    ``alt`` the text; :meth:`show` sets both on every redraw.

    Notebook 10, through widgets.passk_explorer.
    """

    def __init__(self, W, width: str = "100%", max_width: str = "900px") -> None:
        self.widget = W.HTML()
        self.widget._toolkit_picture = self  # the static copy finds the PNG and alt here
        self.size = f"width:{width};max-width:{max_width};height:auto"
        fixed = f"width:{width};" if width and width != "100%" else ""
        self.static_style = f"{fixed}max-width:100%;height:auto"
        self.value = b""
        self.alt = ""

    def show(self, png: bytes, alt: str) -> None:
        self.value, self.alt = png, alt
        self.widget.value = img_html(png, alt, self.size)


# Sliders (noUiSlider) and radio groups of ipywidgets 8.1 have no accessible name: their label
# is not tied to the handle, and no Python trait reaches it. This runs once per drawn view
# (an HTML widget's content is set with innerHTML, so an image's onload handler runs; <script>
# would not): it names each slider handle and radio group from its label, or from the fuller
# name the view gives (``names``) (a radio group without a label takes the text just before
# it, a quiz's question), and makes each ``toolkit-live`` output a polite live region,
# so a screen reader hears the new key numbers. It watches the view, so controls drawn later
# get their names too. The static copy leaves it out.
_ARIA_JS = """(function(img){var tries=0;function start(){var root=img.closest('.toolkit-view');
if(!root){if(tries++<50)setTimeout(start,100);return;}if(root.getAttribute('data-toolkit-aria'))return;
root.setAttribute('data-toolkit-aria','1');var names=JSON.parse(img.getAttribute('data-names')||'{}');
function label(el){var l=el.querySelector(':scope > .widget-label');return l?l.textContent.trim():'';}
function put(el,key,value){if(el&&value&&el.getAttribute(key)!==value)el.setAttribute(key,value);}
function fix(){root.querySelectorAll('.widget-slider').forEach(function(s){var t=label(s),n=names[t]||t;
put(s.querySelector('.noUi-handle'),'aria-label',n);var r=s.querySelector('.widget-readout');
if(r&&n){put(r,'role','textbox');put(r,'aria-label',n+' (type a value)');}});
root.querySelectorAll('.widget-radio').forEach(function(g){var t=label(g),box=g.querySelector('.widget-radio-box'),
q=g.previousElementSibling;put(box,'role','radiogroup');put(box,'aria-label',names[t]||t||(q?q.textContent.trim():''));});
root.querySelectorAll('.toolkit-live > .widget-html-content').forEach(function(c){put(c,'role','status');
put(c,'aria-live','polite');});}
fix();new MutationObserver(fix).observe(root,{childList:true,subtree:true});}start();})(this)"""
_ONE_PIXEL = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def aria_helper(W, names: dict | None = None):
    """The hidden HTML widget that gives a view's sliders and radio groups their names."""
    js = " ".join(_ARIA_JS.split("\n"))
    helper = W.HTML(
        f"<img src='{_ONE_PIXEL}' alt='' style='display:none' "
        f"data-names='{esc(json.dumps(names or {}, ensure_ascii=False))}' onload='{esc(js)}'>",
        layout=W.Layout(height="0px", overflow="hidden", margin="0"),
    )
    helper.add_class("toolkit-script")
    return helper


class LiveView:
    """Base class: controls → ``compute()`` → ``state`` → ``draw(state)``.

    Subclasses build ``self.widget`` (the box a notebook shows), call :meth:`watch` on their
    controls, :meth:`accessible` once the box is built, and implement ``compute`` (pure, may
    raise :class:`InputError`) and ``draw``. ``message`` holds the last complaint ("" when all
    is well); ``state`` the last good result.

    Notebook 10, through widgets.passk_explorer.
    """

    name = "view"
    widget: Any  # the box a notebook shows, built by the subclass

    def __init__(self) -> None:
        W = need_widgets()
        self.W = W
        self.state: Any = None
        self.message = ""
        self.redraws = 0
        self.message_box = self.live(W.HTML(value=""))

    @staticmethod
    def live(widget):
        """Mark an HTML widget as a polite live region: its new text is read out."""
        widget.add_class("toolkit-live")
        return widget

    def accessible(self, names: dict | None = None) -> None:
        """Name the view's sliders and radio groups for screen readers (``names`` maps a
        control's visible label to a fuller name saying what it controls)."""
        self.widget.add_class("toolkit-view")
        self.widget.children = tuple(self.widget.children) + (aria_helper(self.W, names),)

    def watch(self, *controls) -> None:
        for c in controls:
            c.observe(self._changed, names="value")

    def _changed(self, change=None) -> None:
        self.refresh()

    def compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, state) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def refresh(self) -> bool:
        """Recompute and redraw; on bad input, say why and keep the last good view."""
        try:
            state = self.compute()
        except InputError as exc:
            self._say(str(exc))
            return False
        except Exception as exc:  # never a traceback in front of a class
            self._say(f"Could not update the view ({type(exc).__name__}: {exc}). The last good view is kept.")
            return False
        try:
            self.draw(state)
        except Exception as exc:
            self._say(f"Could not draw the new view ({type(exc).__name__}: {exc}). The last good view is kept.")
            return False
        self.state = state
        self.redraws += 1
        self._say("")
        return True

    def _say(self, text: str) -> None:
        self.message = text
        self.message_box.value = (
            ""
            if not text
            else f"<div style='color:{TEXT['vermillion']};background:#FFF1E6;border-left:4px solid "
            f"{OKABE_ITO['vermillion']};padding:4px 8px;font-size:14px'>⚠ {esc(text)}</div>"
        )

    # a view displays itself: `passk_explorer()` on the last line of a cell is enough
    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle.update(static_bundle(self.widget, self.name))
            bundle["text/plain"] = f"<{self.name}: a live view; run the notebook in Jupyter to use it>"
        return bundle


# ------------------------------------------------------------------------------------------------
# the static copy of a view, for places that cannot draw widgets

STATIC_NOTE = "a live view, shown as it first appears. Run its cell (or Run All) in a live kernel to move its controls."
_STYLE_BLOCK = re.compile(r"<style\b.*?</style>", re.S | re.I)
_GREY = THEME_INK_MUTED  # a disabled control's setting, on the notebook's own background


def static_png(png: bytes) -> bytes:
    """A smaller copy of a rendered picture, to save in a notebook: 256 colours (a plot has few;
    the copy looks the same at about a third of the size) and the best compression. The same
    picture always gives the same bytes.

    Used by: toolkit/widgets/_base.py.
    """
    from PIL import Image  # a dependency of matplotlib

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, format="png", optimize=True)
    return out.getvalue()


def static_bundle(widget, name: str) -> dict:
    """``text/html`` (and ``image/png`` when the view holds a picture) showing ``widget`` as it
    is now: its pictures, its HTML and each control's setting, without any script.

    Used by: toolkit/widgets/_base.py.
    """
    walk = _StaticWalk(need_widgets())
    body = walk.html(widget)
    page = (
        f"<div class='toolkit-static-view' style='border:1px solid #ccc;border-radius:4px;"
        f"padding:6px 10px;max-width:1000px'><div style='font-size:12px;color:{THEME_INK_MUTED};"
        f"margin-bottom:6px'><b>{esc(name)}</b>: {esc(STATIC_NOTE)}</div>{body}</div>"
    )
    bundle = {"text/html": page}
    if walk.pngs:
        bundle["image/png"] = base64.b64encode(walk.pngs[0]).decode("ascii")
    return bundle


def _control(label: str, value: str, disabled: bool = False) -> str:
    colour = _GREY if disabled else THEME_INK
    label = f"<b>{esc(label)}</b> " if label else ""
    return f"<div style='font-size:13px;margin:2px 0;color:{colour}'>{label}{value}</div>"


def _boxed(text: str, chosen: bool = False) -> str:
    shade = "background:#dde9f5;font-weight:bold;" if chosen else "background:#f6f6f6;"
    return (
        f"<span style='{shade}color:{INK};border:1px solid #bbb;border-radius:3px;padding:0 8px;"
        f"margin-right:4px'>{esc(text)}</span>"
    )


def _readout(w) -> str:
    try:
        return format(w.value, getattr(w, "readout_format", "") or "")
    except (TypeError, ValueError):
        return str(w.value)


class _StaticWalk:
    """One pass over a widget tree: HTML for what each widget shows, PNG copies of its pictures
    (``pngs``, in order). A widget of a kind not listed here is left out."""

    def __init__(self, W) -> None:
        self.W = W
        self.pngs: list[bytes] = []

    def html(self, w) -> str:
        W = self.W
        if isinstance(w, W.Box):
            parts = "".join(self.html(child) for child in w.children)
            row = "display:flex;flex-wrap:wrap;gap:2px 20px;align-items:flex-start" if isinstance(w, W.HBox) else ""
            return f"<div style='{row}'>{parts}</div>" if parts else ""
        if "toolkit-script" in w._dom_classes:
            return ""
        if getattr(w, "_toolkit_picture", None) is not None:
            return self._picture(w._toolkit_picture)
        if isinstance(w, (W.HTML, W.HTMLMath)):
            text = _STYLE_BLOCK.sub("", w.value).strip()
            return f"<div>{text}</div>" if text else ""
        if isinstance(w, W.Label):
            return f"<div>{esc(w.value)}</div>" if w.value else ""
        return self._control(w)

    def _picture(self, picture: Picture) -> str:
        """The plot as a smaller PNG, with the same alt text as the live one."""
        if not picture.value:
            return ""
        data = static_png(picture.value)
        self.pngs.append(data)
        return f"<div>{img_html(data, picture.alt, picture.static_style)}</div>"

    def _control(self, w) -> str:
        W = self.W
        label = getattr(w, "description", "") or ""
        off = bool(getattr(w, "disabled", False))
        names = list(getattr(w, "_options_labels", ()))
        if isinstance(w, W.Checkbox):
            return _control("", f"{'☑' if w.value else '☐'} {esc(label)}", off)
        if isinstance(w, W.RadioButtons):
            lines = "".join(f"<div>{'●' if i == w.index else '○'} {esc(n)}</div>" for i, n in enumerate(names))
            return _control(label, f"<div style='margin-left:4px'>{lines}</div>", off)
        if isinstance(w, W.ToggleButtons):
            return _control(label, "".join(_boxed(n, i == w.index) for i, n in enumerate(names)), off)
        if isinstance(w, W.SelectMultiple):
            chosen = [names[i] for i in w.index]
            return _control(label, esc(", ".join(chosen)) + f" <span style='color:{_GREY}'>(selected)</span>", off)
        if isinstance(w, (W.Dropdown, W.Select)):
            return _control(label, _boxed(f"{names[w.index] if w.index is not None else ''} ▾"), off)
        if isinstance(w, W.Button):
            return _control("", _boxed(label), off)
        if isinstance(w, W.Textarea):
            text = (
                f"<pre style='margin:2px 0;padding:4px 6px;background:#f6f6f6;color:{INK};border:1px solid #ddd;"
                f"white-space:pre-wrap;font-size:12px'>{esc(w.value)}</pre>"
                if w.value
                else f"<div style='color:{_GREY};font-style:italic'>(empty) {esc(w.placeholder)}</div>"
            )
            return _control(label, text, off)
        value = getattr(w, "value", None)
        if isinstance(w, W.ValueWidget) and isinstance(value, (int, float, str)) and not isinstance(value, bool):
            return _control(label, _boxed(_readout(w)), off)  # sliders, number and text boxes
        return ""
