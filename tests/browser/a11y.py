"""Running axe-core on a page and keeping what belongs to the course (issue 15).

axe-core comes from npm, pinned in ``tests/browser/npm/package-lock.json`` (``make test-browser``
runs ``npm ci`` there). :func:`audit` injects it into a page, runs the WCAG 2.1 A and AA rules,
and sorts every element axe flags into the course's own content or the page's template.

What counts as the course's content: everything our code puts into an output area
(:data:`CONTENT`: the HTML of the views and transcripts, figures and plots, the widgets of the
live views), and the markdown cells for every rule that is not about the template's colours.

What does not (:data:`TEMPLATE`, with the reason for each): JupyterLab's and nbconvert's own
chrome, whose colours are theirs, not ours:

* ``.jp-InputPrompt``, ``.jp-OutputPrompt``: the ``In [3]:`` / ``Out[3]:`` prompt numbers;
* ``.jp-InputArea``, ``.highlight``, ``.cm-editor``: code cells and their syntax highlighting;
* ``.jp-RenderedText``: plain printed text and tracebacks, drawn in the template's colours
  (a ``print`` sets no colour);
* in markdown cells, the rules :data:`TEMPLATE_RULES_IN_MARKDOWN` (text and link colours
  come from the template's stylesheet: nbconvert's links are #0D47A1, not underlined).

Images and controls are reported on their own: an image in the content without a real text
alternative (no ``alt``, an empty one, or nbconvert's placeholder "No description has been
provided"; an image not drawn, such as a hidden 1-pixel placeholder, reaches no reader and is
left out), and a control without an accessible name (axe's naming rules). What axe cannot
decide (its "incomplete" results, such as text over a picture) is counted, not failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

NPM = Path(__file__).resolve().parent / "npm"
AXE_JS = NPM / "node_modules" / "axe-core" / "axe.min.js"

CONTENT = ".jp-OutputArea-output"
MARKDOWN = ".jp-RenderedMarkdown, .jp-MarkdownOutput"
TEMPLATE = ".jp-InputPrompt, .jp-OutputPrompt, .jp-InputArea, .highlight, .cm-editor, .jp-RenderedText"
TEMPLATE_RULES_IN_MARKDOWN = ("color-contrast", "link-in-text-block")
# axe's rules for a control without an accessible name
NAMING_RULES = (
    "label",
    "button-name",
    "select-name",
    "aria-input-field-name",
    "aria-toggle-field-name",
    "input-button-name",
    "aria-command-name",
)
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
NO_DESCRIPTION = "No description has been provided"

SORT = """([res, sel]) => {
    const out = [];
    for (const v of res.violations) for (const n of v.nodes) {
        const el = document.querySelector(n.target[0]);
        let where = 'template';
        if (el && !el.closest(sel.template)) {
            if (el.closest(sel.content)) where = 'content';
            else if (el.closest(sel.markdown) && !sel.markdownRules.includes(v.id)) where = 'content';
        }
        out.push({rule: v.id, impact: v.impact, where, target: n.target.join(' '),
                  html: n.html.slice(0, 200), why: (n.failureSummary || '').slice(0, 300)});
    }
    const images = Array.from(document.querySelectorAll(sel.content + ' img'))
        .filter((img) => !img.closest(sel.template))
        .filter((img) => img.getClientRects().length && !img.closest('[aria-hidden="true"]')
                         && getComputedStyle(img).visibility !== 'hidden')  // what a reader meets
        .filter((img) => { const alt = (img.getAttribute('alt') || '').trim();
                           return !alt || alt.startsWith(sel.noDescription); })
        .map((img) => (img.closest('[id]') || {}).id + ': ' + img.outerHTML.slice(0, 120));
    return {nodes: out, images, incomplete: res.incomplete.reduce((s, v) => s + v.nodes.length, 0)};
}"""


@dataclass
class Audit:
    where: str
    violations: list = field(default_factory=list)  # in the course's content
    template: int = 0  # flagged elements of the template
    images_without_alt: list = field(default_factory=list)
    unnamed_controls: list = field(default_factory=list)
    needs_review: int = 0  # axe's "incomplete": not decided

    def lines(self) -> list[str]:
        return [f"{v['rule']} ({v['impact']}): {v['html']}\n      {v['why']}" for v in self.violations]

    def summary(self) -> str:
        return (
            f"{self.where}: {len(self.violations)} violations in course content, "
            f"{len(self.images_without_alt)} images without alt, {len(self.unnamed_controls)} "
            f"controls without a name ({self.template} template, {self.needs_review} for review)"
        )


def audit(page, where: str, context=None) -> Audit:
    """Run axe-core on ``page`` (optionally only on the CSS ``context``) and sort its findings."""
    if not AXE_JS.exists():
        raise RuntimeError(f"{AXE_JS} is missing: run `npm ci` in {NPM} (make test-browser does).")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(
        "([ctx, tags]) => axe.run(ctx || document, {runOnly: {type: 'tag', values: tags}, "
        "resultTypes: ['violations', 'incomplete']})",
        [context, WCAG_TAGS],
    )
    sel = {
        "content": CONTENT,
        "markdown": MARKDOWN,
        "template": TEMPLATE,
        "markdownRules": list(TEMPLATE_RULES_IN_MARKDOWN),
        "noDescription": NO_DESCRIPTION,
    }
    found = page.evaluate(SORT, [result, sel])
    mine = [n for n in found["nodes"] if n["where"] == "content"]
    return Audit(
        where=where,
        violations=mine,
        template=sum(1 for n in found["nodes"] if n["where"] == "template"),
        images_without_alt=found["images"],
        unnamed_controls=[n["html"] for n in mine if n["rule"] in NAMING_RULES],
        needs_review=found["incomplete"],
    )
