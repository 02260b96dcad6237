//===- Html.cpp - the report as one self-contained HTML page -----------------===//
//
// `--format=html`: the sections of the Markdown report (Tables.h) as HTML
// tables, with each section's SVG figures inline; no script, no external
// resource (the page works offline and from a CI artifact).
//
//===----------------------------------------------------------------------===//

#include "Report/Html.h"

#include "Report/Format.h"
#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace llmsys {
namespace report {

/// `code` spans of a heading ("train `t`") as <code>.
static std::string inlineCode(StringRef S) {
  std::string Out;
  bool In = false;
  for (char C : S) {
    if (C == '`') {
      Out += In ? "</code>" : "<code>";
      In = !In;
      continue;
    }
    Out += markupText(StringRef(&C, 1));
  }
  if (In)
    Out += "</code>";
  return Out;
}

void printHtml(StringRef Title, ArrayRef<HtmlSection> Sections,
               raw_ostream &OS) {
  OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>" << markupText(Title) << "</title>\n"
     << "<style>\n"
        "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
        "table { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n"
        "th, td { border: 1px solid #ccc; padding: 2px 8px; }\n"
        "th { background: #f0f0f0; }\n"
        "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
        "figure { display: inline-block; margin: 0 1em 1em 0; }\n"
        "section { border-top: 2px solid #ddd; margin-top: 2em; }\n"
        "</style>\n</head>\n<body>\n<h1>" << markupText(Title) << "</h1>\n";
  for (const HtmlSection &H : Sections) {
    const Section &S = H.Tables;
    OS << "<section>\n<h2>" << inlineCode(S.Heading) << "</h2>\n";
    if (!S.Text.empty())
      OS << "<p>" << markupText(S.Text) << "</p>\n";
    for (const std::string &Svg : H.Figures) {
      // Inline: the XML declaration of a standalone file goes.
      StringRef Body = Svg;
      if (Body.startswith("<?xml"))
        Body = Body.drop_front(Body.find('\n') + 1);
      OS << "<figure>\n" << Body << "</figure>\n";
    }
    for (const Table &T : S.Tables) {
      if (!T.Title.empty())
        OS << "<h3>" << markupText(T.Title) << "</h3>\n";
      OS << "<table>\n<tr>";
      for (const std::string &C : T.Columns)
        OS << "<th>" << markupText(C) << "</th>";
      OS << "</tr>\n";
      for (const std::vector<std::string> &Row : T.Rows) {
        OS << "<tr>";
        for (size_t I = 0; I < Row.size(); ++I)
          OS << (I < T.RightAligned.size() && T.RightAligned[I]
                     ? "<td class=\"num\">"
                     : "<td>")
             << markupText(Row[I]) << "</td>";
        OS << "</tr>\n";
      }
      OS << "</table>\n";
    }
    OS << "</section>\n";
  }
  OS << "</body>\n</html>\n";
}

} // namespace report
} // namespace llmsys
