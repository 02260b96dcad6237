//===- ProgramText.cpp - writing and reading the textual IR ---------------===//
//
// One line per item, its words separated by blanks:
//
//   program spec="f.llmsys" scenario="t" micro_batch=2 ... state=expanded
//   schedule kind=1f1b micro_batches=4 ...
//   stage dense_layers=4 embedding=true ...
//   block layer repeat=4 params=49408 ...
//     op attn.qkv fwd category=contraction M=256 N=192 K=64 flops=...
//
// An operator line gives its kind and phase, then only the fields that
// differ from a default operator's; every other line gives all its fields.
// Numbers are written in their shortest form that reads back exactly.
// `//` starts a comment line. The fields of each line are listed once,
// below, for the writer and the reader both.
//
//===----------------------------------------------------------------------===//

#include "IR/ProgramText.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace ir {

// The fields of an operator line after its kind and phase: the word and
// the member.
#define LLMSYS_OP_TEXT_FIELDS(X)                                               \
  X("category", Category)                                                      \
  X("type", Type)                                                              \
  X("tp_axis", TpAxis)                                                         \
  X("token_axis", TokenAxis)                                                   \
  X("level", FabricLevel)                                                      \
  X("overlappable", Overlappable)                                              \
  X("M", M)                                                                    \
  X("N", N)                                                                    \
  X("K", K)                                                                    \
  X("batch", Batch)                                                            \
  X("a_bytes", ABytes)                                                         \
  X("b_bytes", BBytes)                                                         \
  X("flops", Flops)                                                            \
  X("read", BytesRead)                                                         \
  X("write", BytesWritten)                                                     \
  X("flops_per_context", FlopsPerContext)                                      \
  X("bytes_per_context", BytesPerContext)                                      \
  X("saved", SavedBytes)                                                       \
  X("executed", Executed)                                                      \
  X("window", Window)                                                          \
  X("sequence_region", SequenceRegion)                                         \
  X("saved_in_sequence_region", SavedInSequenceRegion)                         \
  X("fused_into", FusedInto)                                                   \
  X("fused_attention", FusedAttention)                                         \
  X("model_work", ModelWork)                                                   \
  X("sparse_weight", SparseWeight)                                             \
  X("collective", Collective)                                                  \
  X("group", Group)                                                            \
  X("group_size", GroupSize)                                                   \
  X("per_node", GroupPerNode)                                                  \
  X("message_bytes", MessageBytes)

// The fields of a block line after its kind.
#define LLMSYS_BLOCK_TEXT_FIELDS(X)                                            \
  X("repeat", Repeat)                                                          \
  X("params", Params)                                                          \
  X("expert_params", ExpertParams)                                             \
  X("trainable", Trainable)                                                    \
  X("quantized_weight_bytes", QuantizedWeightBytes)                           \
  X("narrow_weights", NarrowWeights)                                           \
  X("wide_params", WideParams)

#define LLMSYS_STAGE_TEXT_FIELDS(X)                                            \
  X("dense_layers", DenseLayers)                                               \
  X("moe_layers", MoELayers)                                                   \
  X("embedding", HasEmbedding)                                                 \
  X("head", HasHead)                                                           \
  X("in_flight", InFlight)

#define LLMSYS_SCHEDULE_TEXT_FIELDS(X)                                         \
  X("kind", Kind)                                                              \
  X("micro_batches", MicroBatches)                                             \
  X("virtual_stages", VirtualStages)                                           \
  X("bubble", BubbleFraction)                                                  \
  X("decode_steps", DecodeSteps)

// The program line's fields after the spec and the scenario (passes and
// state are lists, below).
#define LLMSYS_PROGRAM_TEXT_FIELDS(X)                                          \
  X("micro_batch", MicroBatch)                                                 \
  X("decode_batch", DecodeBatch)                                               \
  X("seq_len", SeqLen)

namespace {

/// The words of the ProgramState bits.
struct StateWord {
  ProgramState Bit;
  StringLiteral Word;
};
constexpr StateWord StateWords[] = {
    {StateExpanded, "expanded"},     {StateFused, "fused"},
    {StateRecomputed, "recomputed"}, {StatePartitioned, "partitioned"},
    {StateQuantized, "quantized"},   {StateScheduled, "scheduled"},
    {StateAdapted, "adapted"},
};

// A value's text and its reading, per member type.
StringRef nameOf(OpCategory V) { return categoryName(V); }
StringRef nameOf(Phase V) { return phaseName(V); }
StringRef nameOf(ParallelDim V) { return parallelDimName(V); }
StringRef nameOf(CollectiveKind V) { return collectiveName(V); }
StringRef nameOf(Axis V) { return axisName(V); }
StringRef nameOf(AttentionKernel V) { return attentionKernelName(V); }
StringRef nameOf(OpKind V) { return V == OpKind::None ? "none" : opName(V); }
StringRef nameOf(BlockKind V) { return blockKindName(V); }
StringRef nameOf(DType V) { return dtypeName(V); }
StringRef nameOf(ScheduleKind V) { return scheduleName(V); }

template <typename E> constexpr unsigned countOf() {
  if constexpr (std::is_same_v<E, OpKind>)
    return static_cast<unsigned>(OpKind::NumOpKinds);
  else
    return static_cast<unsigned>(E::Last) + 1;
}

template <typename E>
std::enable_if_t<std::is_enum_v<E>, std::string> text(E V) {
  return nameOf(V).str();
}
std::string text(bool V) { return V ? "true" : "false"; }
std::string text(double V) { return fmt::format("{}", V); }
std::string text(float V) { return fmt::format("{}", V); }
std::string text(int64_t V) { return std::to_string(V); }
std::string text(int32_t V) { return std::to_string(V); }
std::string text(uint8_t V) { return std::to_string(unsigned(V)); }

template <typename E>
std::enable_if_t<std::is_enum_v<E>, bool> parseWord(StringRef W, E &V) {
  for (unsigned I = 0; I < countOf<E>(); ++I)
    if (nameOf(static_cast<E>(I)) == W) {
      V = static_cast<E>(I);
      return true;
    }
  return false;
}
// The schema's enumerations (IR/Enums.def) read by their words.
bool parseWord(StringRef W, DType &V) {
  std::optional<DType> D = enumFromWord<DType>(W);
  V = D.value_or(V);
  return D.has_value();
}
bool parseWord(StringRef W, ScheduleKind &V) {
  std::optional<ScheduleKind> S = enumFromWord<ScheduleKind>(W);
  V = S.value_or(V);
  return S.has_value();
}
bool parseWord(StringRef W, bool &V) {
  if (W != "true" && W != "false")
    return false;
  V = W == "true";
  return true;
}
bool parseWord(StringRef W, double &V) { return !W.getAsDouble(V); }
bool parseWord(StringRef W, float &V) {
  double D;
  if (W.getAsDouble(D))
    return false;
  V = float(D);
  return true;
}
template <typename I>
std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, bool>
parseWord(StringRef W, I &V) {
  int64_t X;
  if (W.getAsInteger(10, X) || X < int64_t(std::numeric_limits<I>::min()) ||
      X > int64_t(std::numeric_limits<I>::max()))
    return false;
  V = I(X);
  return true;
}

/// What a word should have been, for the diagnostic.
template <typename T> const char *kindOf() {
  if constexpr (std::is_same_v<T, bool>)
    return "true or false";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else if constexpr (std::is_integral_v<T>)
    return "an integer in range";
  else if constexpr (std::is_same_v<T, OpKind>)
    return "an operator kind";
  else if constexpr (std::is_same_v<T, Phase>)
    return "a phase";
  else if constexpr (std::is_same_v<T, BlockKind>)
    return "a block kind";
  else if constexpr (std::is_same_v<T, DType>)
    return "a number format";
  else if constexpr (std::is_same_v<T, ScheduleKind>)
    return "a schedule";
  else if constexpr (std::is_same_v<T, Axis>)
    return "an axis";
  else if constexpr (std::is_same_v<T, OpCategory>)
    return "an operator category";
  else if constexpr (std::is_same_v<T, CollectiveKind>)
    return "a collective";
  else if constexpr (std::is_same_v<T, AttentionKernel>)
    return "an attention kernel";
  else
    return "a parallel dimension";
}

std::string quoted(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

} // namespace

std::string stateWords(unsigned State) {
  std::string Out;
  for (const StateWord &S : StateWords)
    if (State & S.Bit)
      Out += (Out.empty() ? "" : ",") + S.Word.str();
  return Out;
}

void writeProgramText(const Program &P, StringRef SpecPath, raw_ostream &OS) {
  OS << "// llmsys program IR (llmsys-opt --emit=ir)\n";
  OS << "program spec=" << quoted(SpecPath)
     << " scenario=" << quoted(P.Scenario.Name);
#define X(Word, Member) OS << " " Word "=" << text(P.Member);
  LLMSYS_PROGRAM_TEXT_FIELDS(X)
#undef X
  OS << " passes=" << join(P.Passes, ",");
  OS << " state=" << stateWords(P.State) << '\n';
  OS << "schedule";
#define X(Word, Member) OS << " " Word "=" << text(P.Schedule.Member);
  LLMSYS_SCHEDULE_TEXT_FIELDS(X)
#undef X
  OS << '\n';
  for (const Stage &St : P.Stages) {
    OS << "stage";
#define X(Word, Member) OS << " " Word "=" << text(St.Member);
    LLMSYS_STAGE_TEXT_FIELDS(X)
#undef X
    // A list, written where there is one.
    if (!St.MoEChunks.empty()) {
      OS << " moe_chunks=";
      for (size_t I = 0; I < St.MoEChunks.size(); ++I)
        OS << (I ? "," : "") << text(St.MoEChunks[I]);
    }
    OS << '\n';
  }
  const Op Default;
  for (const Block &B : P.Blocks) {
    OS << "block " << text(B.Kind);
#define X(Word, Member) OS << " " Word "=" << text(B.Member);
    LLMSYS_BLOCK_TEXT_FIELDS(X)
#undef X
    OS << '\n';
    for (const Op &O : B.Ops) {
      OS << "  op " << text(O.Kind) << ' ' << text(O.Ph);
#define X(Word, Member)                                                        \
  if (!(O.Member == Default.Member))                                           \
    OS << " " Word "=" << text(O.Member);
      LLMSYS_OP_TEXT_FIELDS(X)
#undef X
      OS << '\n';
    }
  }
}

namespace {

/// A word of a line: its text (a quoted value unquoted) and where it is.
struct Word {
  StringRef Key; ///< before '=' (the whole word when there is none)
  std::string Value;
  bool HasValue = false;
  SMRange Range;
};

class Reader {
public:
  Reader(unsigned BufferID, DiagnosticEngine &Diags)
      : Diags(Diags),
        Text(Diags.getSourceMgr().getMemoryBuffer(BufferID)->getBuffer()) {}

  std::optional<ProgramText> read();

private:
  DiagnosticEngine &Diags;
  StringRef Text;
  bool Failed = false;

  SMRange rangeOf(StringRef S) const {
    return SMRange(SMLoc::getFromPointer(S.begin()),
                   SMLoc::getFromPointer(S.end()));
  }
  /// Splits a line into words; false after a diagnosed problem.
  bool words(StringRef Line, SmallVectorImpl<Word> &Words);
  template <typename T> bool value(const Word &W, T &V) {
    if (parseWord(StringRef(W.Value), V))
      return true;
    Diags.report<DiagID::err_ir_value>(W.Range, W.Value, W.Key, kindOf<T>());
    Failed = true;
    return false;
  }
  void unknown(const Word &W, StringRef Line) {
    Diags.report<DiagID::err_ir_unknown_field>(W.Range, W.Key, Line);
    Failed = true;
  }
};

bool Reader::words(StringRef Line, SmallVectorImpl<Word> &Words) {
  size_t I = 0;
  while (I < Line.size()) {
    while (I < Line.size() && (Line[I] == ' ' || Line[I] == '\t'))
      ++I;
    if (I == Line.size())
      break;
    size_t Start = I;
    Word W;
    while (I < Line.size() && Line[I] != ' ' && Line[I] != '\t' &&
           Line[I] != '=')
      ++I;
    W.Key = Line.slice(Start, I);
    if (I < Line.size() && Line[I] == '=') {
      W.HasValue = true;
      ++I;
      if (I < Line.size() && Line[I] == '"') {
        ++I;
        while (I < Line.size() && Line[I] != '"') {
          if (Line[I] == '\\' && I + 1 < Line.size())
            ++I;
          W.Value += Line[I++];
        }
        if (I == Line.size()) {
          Diags.report<DiagID::err_ir_syntax>(rangeOf(Line.slice(Start, I)),
                                              "a closing '\"'");
          return false;
        }
        ++I;
      } else {
        size_t V = I;
        while (I < Line.size() && Line[I] != ' ' && Line[I] != '\t')
          ++I;
        W.Value = Line.slice(V, I).str();
      }
    }
    W.Range = rangeOf(Line.slice(Start, I));
    Words.push_back(std::move(W));
  }
  return true;
}

std::optional<ProgramText> Reader::read() {
  ProgramText Out;
  Program &P = Out.Prog;
  bool SawProgram = false;
  Block *Current = nullptr;
  StringRef Rest = Text;
  while (!Rest.empty() && !Diags.reachedLimit()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    StringRef Trimmed = Line.trim();
    if (Trimmed.empty() || Trimmed.startswith("//"))
      continue;
    SmallVector<Word, 16> Words;
    if (!words(Trimmed, Words)) {
      Failed = true;
      continue;
    }
    const Word &Head = Words.front();
    StringRef Kind = Head.Key;
    if (Head.HasValue || (Kind != "program" && !SawProgram)) {
      Diags.report<DiagID::err_ir_syntax>(
          Head.Range, SawProgram ? "'schedule', 'stage', 'block' or 'op'"
                                 : "'program' first");
      Failed = true;
      if (!SawProgram)
        break;
      continue;
    }
    ArrayRef<Word> Fields = ArrayRef<Word>(Words).drop_front();
    if (Kind == "program") {
      if (SawProgram) {
        Diags.report<DiagID::err_ir_syntax>(Head.Range,
                                            "one 'program' line in a file");
        Failed = true;
        continue;
      }
      SawProgram = true;
      Out.ProgramRange = Head.Range;
      for (const Word &W : Fields) {
#define X(Word, Member)                                                        \
  if (W.Key == Word) {                                                         \
    value(W, P.Member);                                                        \
    continue;                                                                  \
  }
        LLMSYS_PROGRAM_TEXT_FIELDS(X)
#undef X
        if (W.Key == "spec") {
          Out.SpecPath = W.Value;
          Out.SpecRange = W.Range;
        } else if (W.Key == "scenario") {
          Out.ScenarioName = W.Value;
          Out.ScenarioRange = W.Range;
        } else if (W.Key == "passes") {
          P.Passes.clear();
          for (StringRef N : llvm::split(StringRef(W.Value), ','))
            if (!N.empty())
              P.Passes.push_back(N.str());
        } else if (W.Key == "state") {
          P.State = 0;
          for (StringRef N : llvm::split(StringRef(W.Value), ',')) {
            if (N.empty())
              continue;
            const StateWord *S = find_if(
                StateWords, [&](const StateWord &S) { return S.Word == N; });
            if (S == std::end(StateWords)) {
              Diags.report<DiagID::err_ir_value>(W.Range, N, W.Key,
                                                 "a program state");
              Failed = true;
            } else {
              P.State |= S->Bit;
            }
          }
        } else {
          unknown(W, Kind);
        }
      }
      if (Out.SpecPath.empty() || Out.ScenarioName.empty()) {
        Diags.report<DiagID::err_ir_syntax>(
            Head.Range, "spec=\"...\" and scenario=\"...\"");
        Failed = true;
      }
    } else if (Kind == "schedule") {
      for (const Word &W : Fields) {
#define X(Word, Member)                                                        \
  if (W.Key == Word) {                                                         \
    value(W, P.Schedule.Member);                                               \
    continue;                                                                  \
  }
        LLMSYS_SCHEDULE_TEXT_FIELDS(X)
#undef X
        unknown(W, Kind);
      }
    } else if (Kind == "stage") {
      Stage &St = P.Stages.emplace_back();
      for (const Word &W : Fields) {
#define X(Word, Member)                                                        \
  if (W.Key == Word) {                                                         \
    value(W, St.Member);                                                       \
    continue;                                                                  \
  }
        LLMSYS_STAGE_TEXT_FIELDS(X)
#undef X
        if (W.Key == "moe_chunks") {
          St.MoEChunks.clear();
          for (StringRef N : llvm::split(StringRef(W.Value), ',')) {
            Word Element = W;
            Element.Value = N.str();
            value(Element, St.MoEChunks.emplace_back());
          }
          continue;
        }
        unknown(W, Kind);
      }
    } else if (Kind == "block") {
      Current = &P.Blocks.emplace_back();
      if (Fields.empty() || Fields.front().HasValue) {
        Diags.report<DiagID::err_ir_syntax>(Head.Range, "a block kind");
        Failed = true;
        continue;
      }
      Word KindWord = Fields.front();
      KindWord.Value = KindWord.Key.str();
      KindWord.Key = "block";
      value(KindWord, Current->Kind);
      for (const Word &W : Fields.drop_front()) {
#define X(Word, Member)                                                        \
  if (W.Key == Word) {                                                         \
    value(W, Current->Member);                                                 \
    continue;                                                                  \
  }
        LLMSYS_BLOCK_TEXT_FIELDS(X)
#undef X
        unknown(W, Kind);
      }
    } else if (Kind == "op") {
      if (!Current) {
        Diags.report<DiagID::err_ir_syntax>(Head.Range,
                                            "a 'block' line before its ops");
        Failed = true;
        continue;
      }
      Op &O = Current->Ops.emplace_back();
      if (Fields.size() < 2 || Fields[0].HasValue || Fields[1].HasValue) {
        Diags.report<DiagID::err_ir_syntax>(Head.Range,
                                            "an operator kind and a phase");
        Failed = true;
        continue;
      }
      Word KindWord = Fields[0], PhaseWord = Fields[1];
      KindWord.Value = KindWord.Key.str();
      KindWord.Key = "op";
      PhaseWord.Value = PhaseWord.Key.str();
      PhaseWord.Key = "phase";
      value(KindWord, O.Kind);
      // A kind has one category (IR/OpKinds.def): the text may leave it out.
      O.Category = opCategory(O.Kind);
      value(PhaseWord, O.Ph);
      for (const Word &W : Fields.drop_front(2)) {
#define X(Word, Member)                                                        \
  if (W.Key == Word) {                                                         \
    value(W, O.Member);                                                        \
    continue;                                                                  \
  }
        LLMSYS_OP_TEXT_FIELDS(X)
#undef X
        unknown(W, Kind);
      }
    } else {
      Diags.report<DiagID::err_ir_syntax>(
          Head.Range, "'program', 'schedule', 'stage', 'block' or 'op'");
      Failed = true;
    }
  }
  if (!SawProgram && !Failed) {
    Diags.report<DiagID::err_ir_syntax>(
        SMRange(SMLoc::getFromPointer(Text.end()),
                SMLoc::getFromPointer(Text.end())),
        "a 'program' line");
    Failed = true;
  }
  if (Failed)
    return std::nullopt;
  markRepeatedStages(Out.Prog.Stages);
  return Out;
}

} // namespace

std::optional<ProgramText> readProgramText(unsigned BufferID,
                                           DiagnosticEngine &Diags) {
  return Reader(BufferID, Diags).read();
}

} // namespace ir
} // namespace llmsys
