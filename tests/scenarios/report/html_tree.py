"""A small HTML tree for tests: find elements by tag and class and read their text as a reader would.

Usage:
    page = parse(html)
    [row.text() for row in page.find_all("tr", cls="failed")]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Element", "parse"]

# Elements without an end tag: they never hold children.
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "wbr",
}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def text(self) -> str:
        """The text inside, with runs of white space as one space."""
        parts = [c if isinstance(c, str) else c.text() for c in self.children]
        return " ".join(" ".join(parts).split())

    def find_all(self, tag: str, cls: str | None = None) -> list[Element]:
        found = []
        for child in self.children:
            if isinstance(child, Element):
                if child.tag == tag and (cls is None or cls in child.classes):
                    found.append(child)
                found += child.find_all(tag, cls)
        return found

    def find(self, tag: str, cls: str | None = None) -> Element:
        """The first match; a test that expects one fails here, naming what was missing."""
        found = self.find_all(tag, cls)
        assert found, f"no <{tag} class={cls}> in <{self.tag} {self.attrs}>"
        return found[0]

    def by_id(self, id_: str) -> Element:
        for element in self.find_all_elements():
            if element.attrs.get("id") == id_:
                return element
        raise AssertionError(f"no element with id {id_}")

    def find_all_elements(self) -> list[Element]:
        every = []
        for child in self.children:
            if isinstance(child, Element):
                every += [child, *child.find_all_elements()]
        return every


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in _VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        # Close up to the matching open element; a stray end tag is ignored.
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
