"""What the study pages' checkers share: a page's prose, the numbers it
must quote as the tool computes them, and findings that must hold."""


class Prose:
    def __init__(self, path):
        # Whitespace-insensitive: the prose wraps anywhere.
        self.page = " ".join(open(path).read().split())
        self.failed = []

    def quoted(self, text):
        """TEXT, recomputed from the tool's output, appears on the page."""
        if text not in self.page:
            self.failed.append(text)

    def check(self, what, ok):
        """A finding the page states holds."""
        if not ok:
            self.failed.append(what)

    def report(self, title):
        for x in self.failed:
            print(f"FAILED: {x}")
        print(f"{title}: " + ("ok" if not self.failed else f"{len(self.failed)} failed"))
