//===- FormatTest.cpp - llmsys fmt changes whitespace alone ---------------===//
//
// The formatter refuses a text whose tokens, comments or tree differ from
// the file's (err_format_internal). No input makes the formatter itself
// produce one, so the check is given texts made by hand here.
//
//===----------------------------------------------------------------------===//

#include "Format/Format.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace llmsys;

namespace {

const char Source[] = "model m {  // width\n"
                      "  layers = 96; vocab = 2 tokens\n"
                      "}\n";

/// The check's verdict on Formatted, and its message if it refused.
std::pair<bool, std::string> check(llvm::StringRef Formatted) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Source, "m.llmsys"), llvm::SMLoc());
  bool Ok = checkFormatted(ID, SM, Formatted, Diags);
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  Diags.flush(OS);
  return {Ok, OS.str()};
}

TEST(FormatCheck, AcceptsWhitespaceChanges) {
  EXPECT_TRUE(check("model m { // width   \n layers = 96;vocab = 2 tokens }")
                  .first);
}

TEST(FormatCheck, RefusesADroppedComment) {
  auto [Ok, Message] = check("model m {\n  layers = 96; vocab = 2 tokens\n}\n");
  EXPECT_FALSE(Ok);
  EXPECT_NE(Message.find("m.llmsys:1:12: error: internal formatter error: "
                         "the formatted text would have 'layers' in place "
                         "of '// width'; the file is left as it is"),
            std::string::npos)
      << Message;
}

TEST(FormatCheck, RefusesAChangedComment) {
  auto [Ok, Message] =
      check("model m {  //  width\n  layers = 96; vocab = 2 tokens\n}\n");
  EXPECT_FALSE(Ok);
  EXPECT_NE(Message.find("in place of '// width'"), std::string::npos)
      << Message;
}

TEST(FormatCheck, RefusesADroppedToken) {
  auto [Ok, Message] = check("model m {  // width\n  layers = 96; vocab = 2 tokens\n");
  EXPECT_FALSE(Ok);
  EXPECT_NE(Message.find("would drop '}'"), std::string::npos) << Message;
}

TEST(FormatCheck, RefusesAnAddedToken) {
  auto [Ok, Message] =
      check("model m {  // width\n  layers = 96; vocab = 2 tokens\n}\n;\n");
  EXPECT_FALSE(Ok);
  EXPECT_NE(Message.find("would add ';'"), std::string::npos) << Message;
}

// The same tokens, but the unit moved to the next line is no longer the
// number's: another tree.
TEST(FormatCheck, RefusesADifferentTree) {
  auto [Ok, Message] =
      check("model m {  // width\n  layers = 96; vocab = 2\n tokens\n}\n");
  EXPECT_FALSE(Ok);
  EXPECT_NE(Message.find("error: internal formatter error: the formatted "
                         "text "),
            std::string::npos)
      << Message;
}

TEST(FormatBuffer, FormatsAndPassesItsOwnCheck) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Source, "m.llmsys"), llvm::SMLoc());
  std::optional<std::string> Out = formatBuffer(ID, SM, Diags);
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "model m {                   // width\n"
                  "  layers = 96; vocab = 2 tokens\n"
                  "}\n");
}

TEST(UnifiedDiff, EqualTextsHaveNoDiff) {
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(UnifiedDiff, OneHunkWithContext) {
  EXPECT_EQ(unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nV\n6\n7\n8\n",
                        "x", "y"),
            "--- x\n+++ y\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+V\n 6\n 7\n 8\n");
}

TEST(UnifiedDiff, MissingFinalLineBreak) {
  EXPECT_EQ(unifiedDiff("a\nb", "a\nb\n", "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of "
            "file\n+b\n");
}

} // namespace
