"""A tiny document model written out as Markdown and as self-contained HTML.

Reports are assembled once as a list of blocks so report.md and report.html
cannot drift apart. The report's order is render.build_document's (the place for the progress
table and the hardware-counter paragraphs, after the summary, is marked there).
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field


@dataclass
class Heading:
    text: str
    level: int = 2


@dataclass
class Link:
    """A link at the end of a paragraph; Markdown and HTML may point to different files (the
    other report's report.md and report.html)."""
    label: str
    md_href: str
    html_href: str = ""


@dataclass
class Paragraph:
    text: str
    # Notes are things the reader must not miss (GPU skipped, partial run).
    note: bool = False
    link: Link | None = None
    # The report's answer in a sentence (headline.py): set larger, read first.
    lead: bool = False


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    # Narrow tables (the first screen's) wrap inside the page: no scroll box of their own.
    fit: bool = False


@dataclass
class Detail:
    """One folded item: a title and its (label, value) lines."""
    title: str
    fields: list[tuple[str, str]]


@dataclass
class Details:
    """Per-item detail that HTML folds (<details>, closed) and Markdown lists (a nested list):
    the columns the first screen's table leaves out."""
    items: list[Detail]


@dataclass
class BulletList:
    items: list[str]


@dataclass
class Image:
    title: str
    filename: str
    png: bytes = field(repr=False, default=b"")
    # False where a heading right above already names the image: the HTML caption would
    # repeat it.
    caption: bool = True


Block = Heading | Paragraph | Table | BulletList | Image | Details


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append("#" * block.level + " " + block.text)
        elif isinstance(block, Paragraph):
            link = f"[{block.link.label}]({block.link.md_href})" if block.link else ""
            text = f"**{block.text}**" if block.lead else block.text
            out.append(("> **Note:** " if block.note else "") + text + link)
        elif isinstance(block, Table):
            out.append("| " + " | ".join(_md_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---" for _ in block.headers) + "|")
            out.extend("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows)
        elif isinstance(block, BulletList):
            out.extend("- " + _md_cell(item) for item in block.items)
        elif isinstance(block, Image):
            out.append(f"![{block.title}]({block.filename})")
        elif isinstance(block, Details):
            for item in block.items:
                out.append(f"- **{_md_cell(item.title)}**")
                out.extend(f"  - {_md_cell(label)}: {_md_cell(value)}"
                           for label, value in item.fields)
        out.append("")
    return "\n".join(out)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: min(1800px, 96vw);
       color: #222; }
p, ul { max-width: 1200px; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.8em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f0f0f0; }
td { font-variant-numeric: tabular-nums; }
table.fit { font-size: 0.85em; }
.lead { font-size: 1.2em; line-height: 1.4; max-width: 1300px; margin: 0.4em 0 0.3em; }
figure { margin: 0.4em 0 0.8em; }
h1 { margin: 0.2em 0 0.3em; }
details { margin: 0.15em 0; max-width: 1300px; }
details > summary { cursor: pointer; }
details table { margin: 0.3em 0 0.6em 1.2em; }
.note { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.5em 0.8em; }
img { max-width: 100%; border: 1px solid #eee; }
"""


def to_html(blocks: list[Block], title: str, embed_images: bool = True) -> str:
    """The blocks as one HTML page. embed_images=False links each chart to its PNG file beside
    the page instead of embedding it: a committed report then keeps its charts as files and the
    page stays small (a default run's embedded page is ~4.7 MB)."""
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
           f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"]
    for block in blocks:
        if isinstance(block, Heading):
            out.append(f"<h{block.level}>{esc(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            cls = " class='note'" if block.note else (" class='lead'" if block.lead else "")
            link = (f"<a href='{esc(block.link.html_href or block.link.md_href)}'>"
                    f"{esc(block.link.label)}</a>" if block.link else "")
            out.append(f"<p{cls}>{esc(block.text)}{link}</p>")
        elif isinstance(block, Table):
            # Wide tables (the ceilings, the per-size results) scroll inside their box, not the
            # page; a narrow one (fit) wraps its cells to the page's width instead.
            wrapper = "<div class='fit'><table class='fit'>" if block.fit \
                else "<div class='wide'><table>"
            out.append(wrapper + "<thead><tr>"
                       + "".join(f"<th>{esc(h)}</th>" for h in block.headers)
                       + "</tr></thead><tbody>")
            out.extend("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in row) + "</tr>"
                       for row in block.rows)
            out.append("</tbody></table></div>")
        elif isinstance(block, BulletList):
            out.append("<ul>" + "".join(f"<li>{esc(item)}</li>" for item in block.items)
                       + "</ul>")
        elif isinstance(block, Image):
            # Embedded by default so the single HTML file can be mailed or attached to CI.
            src = (f"data:image/png;base64,{base64.b64encode(block.png).decode('ascii')}"
                   if embed_images else esc(block.filename))
            caption = f"<figcaption>{esc(block.title)}</figcaption>" if block.caption else ""
            out.append(f"<figure><img alt='{esc(block.title)}' src='{src}'>{caption}</figure>")
        elif isinstance(block, Details):
            out.extend(_details_html(item) for item in block.items)
    out.append("</body></html>")
    return "\n".join(out)


def _details_html(item: Detail) -> str:
    esc = html.escape
    lines = "".join(f"<tr><th>{esc(label)}</th><td>{esc(str(value))}</td></tr>"
                    for label, value in item.fields)
    return (f"<details><summary>{esc(item.title)}</summary>"
            f"<table><tbody>{lines}</tbody></table></details>")
