"""recall@k explorer: how often does BM25 put the right tool in the model's short menu?

Pack §2.4 ("Picking tools: a retrieval problem") and lab exercise 8. The 48-tool catalog is
indexed with BM25; each ``query => gold tool`` line is searched, and the view plots recall@k
for k = 1 … 10 against the unchanged catalog's curve, lists each query's top k with misses
marked, and compares the token cost of showing all 48 definitions with showing only the top k
(characters / 4, a rough estimate of our own, as in the pack).

Students can edit the queries, add a synonym table that expands queries before searching
(``look up => find``), rewrite tool descriptions (``flights_search: ...``), and move BM25's
k1 and b. A malformed line gets a sentence naming the line; the last good view stays.

``recall_state`` is the pure computation. In a notebook::

    from toolkit.widgets import recall_explorer
    recall_explorer()
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field

from ..lessons.catalog import CATALOG_QUERIES, expand_query, make_catalog
from ..selection import ToolIndex, schema_size_estimate
from ._base import FONT, LINE_WIDTH, OKABE_ITO, InputError, LiveFigure, LiveView, Picture, esc
from .palette import INK_MUTED, PANEL, TEXT

__all__ = [
    "RecallState",
    "recall_state",
    "parse_query_lines",
    "parse_synonyms",
    "parse_descriptions",
    "RecallExplorer",
    "recall_explorer",
    "K_MAX",
    "default_query_text",
]

K_MAX = 10
ARROW = "=>"


@functools.lru_cache(maxsize=1)
def _tool_names() -> tuple:
    return tuple(t.name for t in make_catalog())


def default_query_text() -> str:
    """The pack's eight demo queries, one ``query => gold tool`` per line.

    Notebook 04, through recall_explorer.
    """
    return "\n".join(f"{q} {ARROW} {g}" for q, g in CATALOG_QUERIES)


def _lines(text: str):
    """Numbered lines that carry content (blank lines and ``#`` comments skipped)."""
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}")
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield number, line


def _unknown_tool(name: str, where: str) -> InputError:
    close = difflib.get_close_matches(name, _tool_names(), n=1, cutoff=0.6)
    hint = f" Did you mean '{close[0]}'?" if close else " Tool names look like flights_search or email_delete."
    return InputError(f"{where}: there is no tool named '{name}'.{hint}")


def parse_query_lines(text: str) -> list[tuple[str, str]]:
    """``query => gold_tool`` lines to pairs. Raises :class:`InputError` naming the first bad line.

    Notebook 04, through recall_explorer.
    """
    names = set(_tool_names())
    pairs = []
    for number, line in _lines(text):
        where = f"Queries, line {number}"
        if ARROW not in line:
            raise InputError(
                f"{where} ('{line}') has no '{ARROW}'. Write each line as "
                f"'query {ARROW} tool_name', for example 'Find hotel rooms in Oslo {ARROW} hotels_search'."
            )
        query, _, gold = line.rpartition(ARROW)
        query, gold = query.strip(), gold.strip()
        if not query:
            raise InputError(f"{where}: the query before '{ARROW}' is empty.")
        if not gold:
            raise InputError(f"{where}: name the right tool after '{ARROW}'.")
        if gold not in names:
            raise _unknown_tool(gold, where)
        pairs.append((query, gold))
    if not pairs:
        raise InputError(f"Add at least one line 'query {ARROW} tool_name' to measure recall.")
    return pairs


def parse_synonyms(text: str) -> dict[str, str]:
    """``phrase => extra words`` lines to a dict (phrase in lower case).

    Notebook 04, through recall_explorer.
    """
    table = {}
    for number, line in _lines(text):
        if ARROW not in line:
            raise InputError(
                f"Synonyms, line {number} ('{line}') has no '{ARROW}'. Write each line as "
                f"'phrase {ARROW} words to add', for example 'look up {ARROW} find search'."
            )
        phrase, _, words = line.partition(ARROW)
        phrase, words = phrase.strip().lower(), words.strip()
        if not phrase or not words:
            raise InputError(f"Synonyms, line {number}: give a phrase before '{ARROW}' and words after it.")
        table[phrase] = words
    return table


def parse_descriptions(text: str) -> dict[str, str]:
    """``tool_name: new description`` lines to a dict.

    Notebook 04, through recall_explorer.
    """
    names = set(_tool_names())
    out = {}
    for number, line in _lines(text):
        where = f"Descriptions, line {number}"
        name, colon, description = line.partition(":")
        name, description = name.strip(), description.strip()
        if not colon or " " in name:
            raise InputError(
                f"{where} ('{line[:60]}') should read 'tool_name: new description', "
                "for example 'flights_search: Look up airline flights between airports.'"
            )
        if name not in names:
            raise _unknown_tool(name, where)
        if not description:
            raise InputError(f"{where}: the new description of {name} is empty.")
        out[name] = description
    return out


@dataclass
class QueryRow:
    query: str
    searched: str
    gold: str
    top: list  # [(name, score)] best first, up to K_MAX
    rank: int | None  # 1-based rank of the gold tool among tools with a score, None if absent


@dataclass
class RecallState:
    """What the recall explorer shows: recall@k, each query's top tools, the token cost.

    Notebook 04, through recall_explorer.
    """

    ks: list
    recall: list  # recall@k for k = 1 … K_MAX with the current settings
    baseline: list  # the same queries on the unchanged catalog, k1=1.5, b=0.75, no synonyms
    rows: list
    k: int
    tokens_all: int
    tokens_top_k: int
    settings: dict = field(default_factory=dict)

    def recall_at(self, k: int) -> float:
        return self.recall[k - 1]


@functools.lru_cache(maxsize=32)
def _catalog(descriptions: tuple) -> tuple:
    return tuple(make_catalog(descriptions=dict(descriptions)))


K1_NOTE = (
    "k1 caps how much a word repeated in one description counts. The catalog's descriptions are "
    "short and say each word once or twice, so on these queries k1 moves the scores but not "
    "recall@k, except at k1 = 0 (repeats ignored); paste a long, repetitive description to see it act."
)


@functools.lru_cache(maxsize=32)
def _index(descriptions: tuple, k1: float, b: float) -> tuple:
    tools = _catalog(descriptions)
    return ToolIndex(tools, k1=k1, b=b), {t.name: t for t in tools}


def _recall_curve(index: ToolIndex, searched: list, golds: list) -> tuple[list, list]:
    tops, ranks = [], []
    for query, gold in zip(searched, golds):
        full = index.search(query, len(index))
        names = [n for n, _ in full]
        tops.append(full[:K_MAX])
        ranks.append(names.index(gold) + 1 if gold in names else None)
    curve = [sum(1 for r in ranks if r is not None and r <= k) / len(ranks) for k in range(1, K_MAX + 1)]
    return curve, list(zip(tops, ranks))


def recall_state(
    queries=None, k: int = 5, k1: float = 1.5, b: float = 0.75, synonyms: str | dict = "", descriptions: str | dict = ""
) -> RecallState:
    """recall@1…10, each query's top tools, and the token cost, for one set of settings.

    ``queries`` is text (``query => tool`` lines) or a list of pairs; ``synonyms`` and
    ``descriptions`` are text in the explorer's formats, or dicts.

    Notebook 04, through recall_explorer.
    """
    pairs = parse_query_lines(queries) if isinstance(queries, str) else list(queries or CATALOG_QUERIES)
    table = parse_synonyms(synonyms) if isinstance(synonyms, str) else dict(synonyms)
    edits = parse_descriptions(descriptions) if isinstance(descriptions, str) else dict(descriptions)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= K_MAX:
        raise InputError(f"k must be a whole number from 1 to {K_MAX}, got {k!r}.")
    for label, value, top in (("k1", k1, 5.0), ("b", b, 1.0)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= top:
            raise InputError(f"{label} must be a number from 0 to {top:g}, got {value!r}.")
    k1, b = round(float(k1), 6), round(float(b), 6)
    index, by_name = _index(tuple(sorted(edits.items())), k1, b)
    plain_index, _ = _index((), 1.5, 0.75)
    golds = [g for _, g in pairs]
    searched = [expand_query(q, table) for q, _ in pairs]
    curve, found = _recall_curve(index, searched, golds)
    baseline, _ = _recall_curve(plain_index, [q for q, _ in pairs], golds)
    rows = [QueryRow(q, s, g, top, rank) for (q, g), s, (top, rank) in zip(pairs, searched, found)]
    sizes = [schema_size_estimate([by_name[n] for n, _ in row.top[:k]]) for row in rows]
    return RecallState(
        list(range(1, K_MAX + 1)),
        curve,
        baseline,
        rows,
        k,
        schema_size_estimate(list(by_name.values())),
        round(sum(sizes) / len(sizes)),
        {"k1": k1, "b": b, "synonyms": len(table), "descriptions": len(edits)},
    )


def table_html(state: RecallState) -> str:
    """Each query's top k, the right tool marked ✓ and misses marked ✗, on a light panel."""
    ok, bad = TEXT["green"], TEXT["vermillion"]
    cell = "padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"
    k = state.k
    rows = []
    for i, row in enumerate(state.rows, start=1):
        names = []
        for name, score in row.top[:k]:
            if name == row.gold:
                names.append(
                    f"<b style='color:{ok}'>✓ {esc(name)}</b> <span style='color:{INK_MUTED}'>{score:g}</span>"
                )
            else:
                names.append(f"{esc(name)} <span style='color:{INK_MUTED}'>{score:g}</span>")
        hit = row.rank is not None and row.rank <= k
        if hit:
            verdict = f"<span style='color:{ok}'>rank {row.rank}</span>"
        else:
            where = f"rank {row.rank}" if row.rank else "no shared words"
            verdict = f"<b style='color:{bad}'>✗ miss</b> ({where})"
        query = esc(row.query)
        if row.searched != row.query:
            query += f" <i style='color:{TEXT['blue']}'>+ {esc(row.searched[len(row.query) :].strip())}</i>"
        rows.append(
            f"<tr><td style='{cell}'>{i}</td><td style='{cell}'>{query}</td>"
            f"<td style='{cell}'><code>{esc(row.gold)}</code></td>"
            f"<td style='{cell}'>{'<br>'.join(names) or '(nothing matched)'}</td>"
            f"<td style='{cell}'>{verdict}</td></tr>"
        )
    head = "".join(
        f"<th style='{cell}'>{h}</th>"
        for h in ("#", "query (+ synonym words)", "right tool", f"top {k} (BM25 score)", "gold")
    )
    return f"<table style='border-collapse:collapse;font-size:13px;{PANEL}'><tr>{head}</tr>{''.join(rows)}</table>"


def alt_text(state: RecallState) -> str:
    """What the two plots show, with their key numbers: the picture's text alternative."""
    k = state.k
    yours = ", ".join(f"{r:.2f}" for r in state.recall)
    plain = ", ".join(f"{r:.2f}" for r in state.baseline)
    return (
        f"Left: recall@k for k = 1 to {K_MAX}, your settings ({yours}) against the unchanged "
        f"catalog ({plain}); a dotted line marks k = {k}. Right: prompt cost in tokens, all 48 "
        f"tools about {state.tokens_all:,}, a top-{k} menu about {state.tokens_top_k:,}."
    )


def summary_line(state: RecallState) -> str:
    """recall@1 and recall@k against the unchanged catalog, and the token cost, in words."""
    k = state.k
    saved = 1 - state.tokens_top_k / state.tokens_all if state.tokens_all else 0
    return (
        f"recall@1 = {state.recall[0]:.2f}, recall@{k} = {state.recall_at(k):.2f} "
        f"({len(state.rows)} queries; unchanged catalog: {state.baseline[0]:.2f} and "
        f"{state.baseline[k - 1]:.2f}). Tokens, characters / 4 (our rough estimate): all 48 "
        f"definitions ≈ {state.tokens_all:,}, a top-{k} menu ≈ {state.tokens_top_k:,} "
        f"({saved:.0%} fewer)."
    )


class RecallExplorer(LiveView):
    """Editable queries, synonyms and descriptions; k1, b and k sliders; recall@k and tokens.

    Notebook 04, through recall_explorer.
    """

    name = "recall@k explorer"

    def __init__(
        self,
        queries: str | None = None,
        synonyms: str = "",
        descriptions: str = "",
        k: int = 5,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        super().__init__()
        W = self.W
        area = dict(continuous_update=False, layout=W.Layout(width="100%"), style={"description_width": "120px"})
        self.queries = W.Textarea(
            value=default_query_text() if queries is None else queries,
            rows=8,
            placeholder=f"query {ARROW} tool_name",
            description="queries",
            **area,
        )
        self.synonyms = W.Textarea(
            value=synonyms,
            rows=3,
            description="synonyms",
            placeholder=f"look up {ARROW} find   (words added to any query containing the phrase)",
            **area,
        )
        self.use_synonyms = W.Checkbox(
            value=True, description="apply the synonym table", indent=False, layout=W.Layout(width="auto")
        )
        self.use_descriptions = W.Checkbox(
            value=True, description="apply the description edits", indent=False, layout=W.Layout(width="auto")
        )
        self.descriptions = W.Textarea(
            value=descriptions,
            rows=3,
            description="description edits",
            placeholder="flights_search: Look up airline flights between two airports.",
            **area,
        )
        slider = dict(continuous_update=False, style={"description_width": "40px"}, layout=W.Layout(width="300px"))
        self.k1 = W.FloatSlider(value=k1, min=0, max=3, step=0.1, description="k1", **slider)
        self.b = W.FloatSlider(value=b, min=0, max=1, step=0.05, description="b", **slider)
        self.k = W.IntSlider(value=k, min=1, max=K_MAX, description="k", **slider)
        self.describe = W.Dropdown(
            options=_tool_names(), value="flights_search", description="tool", layout=W.Layout(width="300px")
        )
        self.copy_button = W.Button(
            description="edit this description",
            icon="pencil",
            tooltip="copy the chosen tool's description into the edits box",
            layout=W.Layout(width="auto"),
        )
        self.current = W.HTML()
        self.copy_button.on_click(self._copy_description)
        self.describe.observe(lambda _: self._show_description(), names="value")
        self.image = Picture(W, max_width="1000px")
        self.summary = self.live(W.HTML())
        self.table = W.HTML()
        label = lambda text: W.HTML(f"<b>{text}</b>")  # noqa: E731
        editors = W.VBox(
            [
                label(f"Queries: one 'query {ARROW} right tool' per line"),
                self.queries,
                W.HBox([label("Synonym table"), self.use_synonyms]),
                self.synonyms,
                W.HBox([label("Description edits: 'tool_name: new text' per line"), self.use_descriptions]),
                self.descriptions,
                W.HBox([self.describe, self.copy_button]),
                self.current,
            ],
            layout=W.Layout(width="100%"),
        )
        self.widget = W.VBox(
            [
                editors,
                W.HBox([self.k1, self.b, self.k]),
                W.HTML(f"<small>{K1_NOTE}</small>"),
                self.message_box,
                self.image.widget,
                self.summary,
                self.table,
            ]
        )
        self.accessible(
            {
                "k1": "k1: BM25's term-frequency saturation",
                "b": "b: BM25's length normalisation",
                "k": "k: how many tools the model is shown",
            }
        )
        self._build_figure()
        self._show_description()
        edits = (self.synonyms, self.use_synonyms, self.descriptions, self.use_descriptions)
        self.watch(self.queries, *edits, self.k1, self.b, self.k)
        self.refresh()

    def compute(self) -> RecallState:
        synonyms = self.synonyms.value if self.use_synonyms.value else ""
        descriptions = self.descriptions.value if self.use_descriptions.value else ""
        return recall_state(self.queries.value, self.k.value, self.k1.value, self.b.value, synonyms, descriptions)

    def _current_descriptions(self) -> dict:
        try:
            return parse_descriptions(self.descriptions.value)
        except InputError:
            return {}

    def _show_description(self) -> None:
        name = self.describe.value
        edits = tuple(sorted(self._current_descriptions().items()))
        tools = {t.name: t for t in _catalog(edits)}
        self.current.value = f"<span style='font-size:13px'>now: <i>{esc(tools[name].description)}</i></span>"

    def _copy_description(self, _button=None) -> None:
        """Put the chosen tool's line into the edits box, ready to rewrite."""
        name = self.describe.value
        edits = self._current_descriptions()
        if name in edits:
            return
        description = next(t.description for t in _catalog(()) if t.name == name)
        text = self.descriptions.value.rstrip("\n")
        self.descriptions.value = (text + "\n" if text else "") + f"{name}: {description}"

    # ---------------------------------------------------------------- drawing
    def _build_figure(self) -> None:
        self.figure = LiveFigure(10.0, 4.0, dpi=100)
        fig = self.figure.fig
        ax = self.ax = fig.add_axes((0.07, 0.15, 0.50, 0.72))
        ks = list(range(1, K_MAX + 1))
        ax.set_xlim(0.6, K_MAX + 0.4)
        ax.set_ylim(-0.02, 1.05)
        ax.set_xticks(ks)
        ax.tick_params(labelsize=FONT["tick"])
        ax.set_xlabel("k (tools shown to the model)", fontsize=FONT["label"])
        ax.set_ylabel("recall@k", fontsize=FONT["label"])
        ax.set_title("Is the right tool in the top k?", fontsize=FONT["title"], loc="left")
        ax.grid(True, alpha=0.3)
        (self.base_line,) = ax.plot(
            [], [], ls="--", lw=2, color=OKABE_ITO["grey"], marker="s", ms=5, label="unchanged catalog, k1=1.5, b=0.75"
        )
        (self.line,) = ax.plot([], [], lw=LINE_WIDTH, color=OKABE_ITO["blue"], marker="o", ms=7, label="your settings")
        self.k_marker = ax.axvline(5, color=OKABE_ITO["orange"], lw=2, ls=":", label="chosen k")
        ax.legend(loc="lower right", fontsize=FONT["legend"], frameon=True)
        tx = self.tax = fig.add_axes((0.68, 0.15, 0.29, 0.72))
        self.bars = tx.barh([1, 0], [0, 0], height=0.6, color=[OKABE_ITO["vermillion"], OKABE_ITO["green"]])
        tx.set_yticks([1, 0], labels=["all 48\ntools", "top-k\nmenu"])
        tx.tick_params(labelsize=FONT["tick"])
        tx.set_xlabel("tokens (chars / 4, rough)", fontsize=FONT["label"])
        tx.set_title("Prompt cost", fontsize=FONT["title"], loc="left")
        tx.grid(True, axis="x", alpha=0.3)
        self._xmax = 5000
        tx.set_xlim(0, self._xmax)
        self.bar_labels = [tx.text(0, y, "", va="center", ha="left", fontsize=FONT["tick"]) for y in (1, 0)]
        # the reference is drawn last, dashed, so it stays visible where the lines coincide
        self.figure.animate(self.line, self.base_line, self.k_marker, *self.bars, *self.bar_labels)

    def draw(self, state: RecallState) -> None:
        self.base_line.set_data(state.ks, state.baseline)
        self.line.set_data(state.ks, state.recall)
        self.k_marker.set_xdata([state.k, state.k])
        self.bars[0].set_width(state.tokens_all)
        self.bars[1].set_width(state.tokens_top_k)
        for label, value, name in zip(
            self.bar_labels, (state.tokens_all, state.tokens_top_k), ("", f"top {state.k}: ")
        ):
            label.set_text(f" {name}{value:,}")
            label.set_x(value)
        if state.tokens_all > self._xmax * 0.75:  # longer descriptions: widen the axis
            self._xmax = 1000 * (int(state.tokens_all * 1.4) // 1000 + 1)
            self.tax.set_xlim(0, self._xmax)
        self.image.show(self.figure.render(key=self._xmax), alt_text(state))
        self.summary.value = f"<div style='font-size:14px;margin:4px 0'>{esc(summary_line(state))}</div>"
        self.table.value = table_html(state)
        self._show_description()


def recall_explorer(**settings) -> RecallExplorer:
    """The recall@k explorer, ready to show: ``recall_explorer()`` as a cell's last line.

    Notebook 04.
    """
    return RecallExplorer(**settings)
