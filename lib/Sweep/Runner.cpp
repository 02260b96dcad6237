//===- Runner.cpp - waves of points over threads, ranked ---------------------===//

#include "Sweep/Checkpoint.h"
#include "Sweep/Instance.h"
#include "Sweep/Wire.h"
#include "Sweep/Sweep.h"

#include "Passes/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <memory>

using namespace llvm;

namespace llmsys {
namespace sweep {

bool higherIsBetter(StringRef F) {
  // A name both scenario kinds have means the same direction in both.
  const ir::FigureInfo *Info = ir::findFigure(true, F);
  if (!Info)
    Info = ir::findFigure(false, F);
  return Info && Info->HigherIsBetter;
}

std::vector<std::string> columns(const spec::Sweep &W) {
  bool Train = W.Scenario->Type->Name == "train";
  std::vector<std::string> Cols =
      Train ? std::vector<std::string>{"step_time", "throughput", "mfu",
                                       "peak_memory", "fits"}
            : std::vector<std::string>{"ttft", "tpot", "e2e", "throughput",
                                       "peak_memory", "fits"};
  auto Add = [&](const std::string &F) {
    if (!is_contained(Cols, F))
      Cols.push_back(F);
  };
  for (const auto &O : W.Objectives)
    Add(O.first);
  for (const spec::Condition &C : W.Where)
    for (const spec::Condition::Node &N : C.Nodes)
      if (N.Kind == spec::Condition::Op::Figure)
        Add(N.Name);
  return Cols;
}

namespace {

/// Orders points by the objective, then by grid index.
struct Ranking {
  unsigned Column = 0;
  bool Higher = false;
  bool better(const Point &A, const Point &B) const {
    double X = A.Figures[Column], Y = B.Figures[Column];
    // A point whose objective is not computed ranks last.
    if (std::isnan(X) != std::isnan(Y))
      return std::isnan(Y);
    if (X != Y && !std::isnan(X))
      return Higher ? X > Y : X < Y;
    return A.Index < B.Index;
  }
};

/// What the sweep keeps: the best N, a Pareto front, or nothing (streamed).
class Keeper {
public:
  Keeper(const spec::Sweep &W, const std::vector<std::string> &Cols) {
    if (W.Objectives.empty())
      return;
    for (const auto &O : W.Objectives) {
      Ranking R;
      R.Column = find(Cols, O.first) - Cols.begin();
      R.Higher = W.Pareto ? higherIsBetter(O.first) : O.second;
      Ranks.push_back(R);
    }
    Pareto = W.Pareto;
    Keep = W.Keep ? *W.Keep : DefaultKeep;
  }
  bool streams() const { return Ranks.empty(); }
  /// What is kept so far, in no order.
  const std::vector<Point> &points() const { return Points; }

  void add(Point P) {
    if (Pareto)
      addPareto(std::move(P));
    else
      addBest(std::move(P));
  }
  void merge(Keeper &&O) {
    for (Point &P : O.Points)
      add(std::move(P));
  }
  std::vector<Point> take() {
    // Best first; a front by its first objective.
    llvm::sort(Points, [&](const Point &A, const Point &B) {
      return Ranks[0].better(A, B);
    });
    return std::move(Points);
  }

private:
  /// Keeps at most Keep points in a heap whose top is the worst kept (the
  /// order is total, ties by grid index, so the kept set is the same in
  /// any order of insertion).
  void addBest(Point P) {
    auto Better = [&](const Point &A, const Point &B) {
      return Ranks[0].better(A, B);
    };
    if (Points.size() < Keep) {
      Points.push_back(std::move(P));
      std::push_heap(Points.begin(), Points.end(), Better);
      return;
    }
    if (!Better(P, Points.front()))
      return;
    std::pop_heap(Points.begin(), Points.end(), Better);
    Points.back() = std::move(P);
    std::push_heap(Points.begin(), Points.end(), Better);
  }
  /// A dominates B: at least as good in both objectives and better in one,
  /// or equal in both and earlier in the grid.
  /// A figure that is not computed (NaN) is the worst value; two of them
  /// are equal.
  bool dominates(const Point &A, const Point &B) const {
    bool Strict = false;
    for (const Ranking &R : Ranks) {
      double X = A.Figures[R.Column], Y = B.Figures[R.Column];
      bool NX = std::isnan(X), NY = std::isnan(Y);
      if (NX && NY)
        continue;
      if (NX)
        return false;
      if (NY) {
        Strict = true;
        continue;
      }
      if (X != Y) {
        if (R.Higher ? X < Y : X > Y)
          return false;
        Strict = true;
      }
    }
    return Strict || A.Index < B.Index;
  }
  void addPareto(Point P) {
    for (const Point &Q : Points)
      if (dominates(Q, P))
        return;
    llvm::erase_if(Points, [&](const Point &Q) { return dominates(P, Q); });
    Points.push_back(std::move(P));
  }

  std::vector<Ranking> Ranks;
  bool Pareto = false;
  unsigned Keep = 0;
  std::vector<Point> Points;
};

/// What one chunk of a wave produced.
struct Chunk {
  uint64_t Begin = 0, End = 0;
  uint64_t Invalid = 0, Rejected = 0;
  std::vector<Point> Streamed;
  std::unique_ptr<Keeper> Kept;
};

class Runner {
public:
  Runner(const spec::Sweep &W, const Options &Opts)
      : W(W), Opts(Opts), Cols(columns(W)) {
    for (const std::string &F : Cols)
      ColIds.push_back(W.Scenario->Type->findFigure(F)->id());
    for (const spec::Condition &C : W.Where)
      (C.NeedsFigures ? After : Before).push_back(&C);
    for (const spec::SweepAxis &A : W.Axes)
      Radix.push_back(A.Values.size());
  }

  Result run();

private:
  void evaluate(Instance &I, Chunk &C);
  void choice(uint64_t Index, std::vector<uint32_t> &Out) const {
    for (size_t A = Radix.size(); A-- > 0;) {
      Out[A] = static_cast<uint32_t>(Index % Radix[A]);
      Index /= Radix[A];
    }
  }

  const spec::Sweep &W;
  const Options &Opts;
  std::vector<std::string> Cols;
  std::vector<ir::FigureID> ColIds; ///< Cols' figures
  std::vector<const spec::Condition *> Before, After;
  std::vector<uint64_t> Radix;
};

} // namespace

void Runner::evaluate(Instance &I, Chunk &C) {
  std::vector<uint32_t> Choice(Radix.size());
  // One evaluation rebuilt point after point (its storage reused).
  driver::Evaluation Scratch;
  passes::PassContext Quiet;
  if (Opts.ReusePrefix && I.prefixKeyExact())
    Quiet.Prefix = &I.prefixCache();
  for (uint64_t Index = C.Begin; Index < C.End; ++Index) {
    // Every point is verified (about a sixth of a point's time,
    // docs/building.md): an axis value can break what the first point of a
    // chunk kept.
    Quiet.Verify = true;
    choice(Index, Choice);
    if (!I.set(Choice)) { // a computed field out of its field's values
      ++C.Invalid;
      continue;
    }
    if (!all_of(Before, [&](const spec::Condition *X) {
          return holds(*X, I.root(), nullptr);
        })) {
      ++C.Rejected;
      continue;
    }
    Quiet.PrefixKey = I.prefixKey();
    if (!Opts.ReuseEvaluation)
      Scratch = driver::Evaluation();
    if (!driver::evaluateInto(I.config(), Quiet, Scratch, /*Detail=*/false)) {
      ++C.Invalid;
      continue;
    }
    if (!all_of(After, [&](const spec::Condition *X) {
          return holds(*X, I.root(), &Scratch);
        })) {
      ++C.Rejected;
      continue;
    }
    Point P;
    P.Index = Index;
    P.Choice = Choice;
    P.Figures.reserve(Cols.size());
    for (ir::FigureID F : ColIds)
      P.Figures.push_back(Scratch.figure(F).value_or(NAN));
    if (C.Kept->streams())
      C.Streamed.push_back(std::move(P));
    else
      C.Kept->add(std::move(P));
  }
}

bool evaluatePoint(const spec::Sweep &W, ArrayRef<uint32_t> Choice,
                   passes::PassContext &Ctx,
                   function_ref<void(const driver::Evaluation &)> Use) {
  Instance I(W);
  if (!I.set(std::vector<uint32_t>(Choice.begin(), Choice.end())))
    return false;
  std::optional<driver::Evaluation> E = driver::evaluate(I.config(), Ctx);
  if (!E)
    return false;
  Use(*E);
  return true;
}

Exchange::~Exchange() = default;

Result Runner::run() {
  Result R;
  R.Columns = Cols;
  R.Total = W.points();
  // Threads: as asked, else one per core, at most 256 and no more than
  // points.
  unsigned Threads = static_cast<unsigned>(std::max<uint64_t>(
      1, std::min<uint64_t>(
             {Opts.Threads ? Opts.Threads
                           : llvm::hardware_concurrency().compute_thread_count(),
              R.Total, 256})));
  // Every rank's threads (ranks may have different numbers of them).
  unsigned Rank = Opts.Ranks ? Opts.Ranks->rank() : 0;
  std::vector<uint64_t> ThreadsOf = {Threads};
  if (Opts.Ranks)
    ThreadsOf = Opts.Ranks->allGather(Threads);
  uint64_t AllThreads = 0, ThreadsBefore = 0;
  for (unsigned I = 0; I < ThreadsOf.size(); ++I) {
    if (I == Rank)
      ThreadsBefore = AllThreads;
    AllThreads += ThreadsOf[I];
  }
  // Chunks of 2048 points (a thread's program caches stay warm over a
  // chunk), smaller when the grid would leave threads idle: at least four
  // waves' worth for every thread of every rank.
  const uint64_t ChunkSize = std::max<uint64_t>(
      1, std::min<uint64_t>(2048, (R.Total + 4 * AllThreads - 1) /
                                      (4 * AllThreads)));
  // A wave is a block of chunks per rank, the ranks' blocks in rank order.
  uint64_t Span = ChunkSize * AllThreads;
  uint64_t MyOffset = ChunkSize * ThreadsBefore;
  Keeper Kept(W, Cols);
  std::vector<std::unique_ptr<Instance>> Instances;
  for (unsigned T = 0; T < Threads; ++T)
    Instances.push_back(std::make_unique<Instance>(W));
  std::unique_ptr<ThreadPool> Pool;
  if (Threads > 1)
    Pool = std::make_unique<ThreadPool>(llvm::hardware_concurrency(Threads));

  // Everything merged so far, kept for the checkpoint (rank 0).
  bool Saving = !Opts.Save.Path.empty() && Rank == 0;
  Saved Progress;
  auto Take = [&](Block &X) {
    R.InvalidMapping += X.Invalid;
    R.RejectedByWhere += X.Rejected;
    R.Accepted += X.Accepted;
    if (Saving) {
      Progress.Done.Invalid += X.Invalid;
      Progress.Done.Rejected += X.Rejected;
      Progress.Done.Accepted += X.Accepted;
    }
    for (Point &P : X.Points) {
      if (Kept.streams()) {
        if (Opts.Stream)
          Opts.Stream(P);
        if (Saving)
          Progress.Done.Points.push_back(std::move(P));
      } else {
        Kept.add(std::move(P));
      }
    }
  };
  // Resume: rank 0 reads the checkpoint and tells every rank where to
  // start (a failure is said the same way, so that all stop).
  uint64_t First = 0;
  if (!Opts.Save.Path.empty()) {
    const uint64_t Refused = ~uint64_t(0);
    uint64_t Start = 0;
    if (Rank == 0) {
      std::string Error;
      std::optional<Saved> S = loadCheckpoint(
          Opts.Save, R.Total, W.Axes.size(), Cols.size(), Error);
      if (S) {
        Start = S->Next;
        R.Resumed = S->Next;
        Take(S->Done);
      }
      // A checkpoint path that cannot be written is found now, not after
      // an interval's work.
      if (Error.empty()) {
        Progress.Next = Start;
        // What was kept goes into this save too: a run stopped before its
        // next save (or a sweep already complete) must not lose it.
        if (!Kept.streams())
          Progress.Done.Points = Kept.points();
        Error = saveCheckpoint(Opts.Save, R.Total, Progress);
      }
      if (!Error.empty()) {
        R.CheckpointError = Error;
        Start = Refused;
      }
    }
    if (Opts.Ranks)
      Start = Opts.Ranks->allGather(Start).front();
    if (Start == Refused) {
      R.Ran = false;
      return R;
    }
    First = Start;
  }

  auto Start = std::chrono::steady_clock::now();
  auto LastShown = Start, LastSaved = Start;
  bool Shown = false;
  for (uint64_t Wave = First; Wave < R.Total; Wave += Span) {
    std::vector<Chunk> Chunks(Threads);
    for (unsigned T = 0; T < Threads; ++T) {
      Chunk &C = Chunks[T];
      C.Begin = std::min(R.Total, Wave + MyOffset + T * ChunkSize);
      C.End = std::min(R.Total, C.Begin + ChunkSize);
      C.Kept = std::make_unique<Keeper>(W, Cols);
      if (Pool)
        Pool->async([this, &C, &I = *Instances[T]] { evaluate(I, C); });
      else
        evaluate(*Instances[T], C);
    }
    if (Pool)
      Pool->wait();
    // This rank's block, merged in grid order.
    Block Mine;
    Keeper Merged(W, Cols);
    for (Chunk &C : Chunks) {
      Mine.Invalid += C.Invalid;
      Mine.Rejected += C.Rejected;
      if (Merged.streams()) {
        Mine.Accepted += C.Streamed.size();
        for (Point &P : C.Streamed)
          Mine.Points.push_back(std::move(P));
      } else {
        Mine.Accepted += (C.End - C.Begin) - C.Invalid - C.Rejected;
        Merged.merge(std::move(*C.Kept));
      }
    }
    if (!Merged.streams())
      Mine.Points = Merged.take();
    // Every rank's block, in rank order: the same result for any number of
    // threads and ranks.
    if (!Opts.Ranks) {
      Take(Mine);
    } else {
      std::string Bytes;
      putBlock(Bytes, Mine);
      for (const std::string &Theirs : Opts.Ranks->gather(Bytes)) {
        Block X;
        StringRef B = Theirs;
        getBlock(B, X);
        Take(X);
      }
    }
    auto Now = std::chrono::steady_clock::now();
    if (Opts.Progress && Rank == 0 &&
        Now - LastShown > std::chrono::milliseconds(250)) {
      uint64_t Done = std::min(R.Total, Wave + Span);
      double Secs = std::chrono::duration<double>(Now - Start).count();
      double Rate = (Done - First) / Secs;
      errs() << format("\r%s: %llu / %llu points (%.0f%%), %.0f points/s, "
                       "ETA %.0f s   ",
                       W.Decl->Name.c_str(), (unsigned long long)Done,
                       (unsigned long long)R.Total, 100.0 * Done / R.Total,
                       Rate, (R.Total - Done) / Rate);
      LastShown = Now;
      Shown = true;
    }
    if (Saving && (Wave + Span >= R.Total ||
                   std::chrono::duration<double>(Now - LastSaved).count() >=
                       Opts.Save.IntervalSeconds)) {
      Progress.Next = std::min(R.Total, Wave + Span);
      if (!Kept.streams())
        Progress.Done.Points = Kept.points();
      std::string Error = saveCheckpoint(Opts.Save, R.Total, Progress);
      if (!Error.empty())
        R.CheckpointError = Error;
      LastSaved = Now;
    }
  }
  if (Shown)
    errs() << "\r\x1b[K";
  R.Kept = Kept.take();
  return R;
}

Result run(const spec::Sweep &W, const Options &Opts) {
  return Runner(W, Opts).run();
}

} // namespace sweep
} // namespace llmsys
