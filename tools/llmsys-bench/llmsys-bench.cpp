//===- llmsys-bench.cpp - speed figures -------------------------------------===//
//
// Benchmarks print figures; targets live here, not in timed tests:
//   BM_FrontEndStdlib  parse and check every file of stdlib/ (target: well
//                      under 50 ms)
//   BM_TrainingEval    the passes and the training cost of Megatron-1T on
//                      3072 A100s (TP 4, PP 64, DP 12, micro-batch 4, full
//                      recompute), front end excluded, as a sweep runs it
//                      at a point whose operators before `partition` an
//                      earlier point built, into one program reused
//                      from point to point (figures only, verifier off;
//                      target: 2 us per evaluation)
//   BM_TrainingEvalAllPasses the same with every pass run (a sweep point
//                      that changes the micro-batch, formats or model)
//   BM_TrainingEvalFull the same with the operator and collective tables,
//                      as `llmsys eval` runs it (target: 50 us cold)
//   BM_SweepGpt3Mapping `llmsys sweep` of a 1,081,344-point mapping grid
//                      of GPT-3 175B on 1024 A100s (tp, pp, dp, micro-batch,
//                      recompute, sp, ZeRO, overlaps, distributed
//                      optimizer) on two threads (target: under 10 s on a
//                      2-core machine)
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Driver/Evaluate.h"
#include "Passes/Passes.h"
#include "Passes/PrefixCache.h"
#include "Sema/Compilation.h"
#include "Sweep/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <benchmark/benchmark.h>
#include <memory>

using namespace llvm;
using namespace llmsys;

static std::vector<std::string> stdlibFiles() {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(LLMSYS_SOURCE_STDLIB_DIR, EC), E;
       I != E && !EC; I.increment(EC))
    if (sys::path::extension(I->path()) == ".llmsys")
      Files.push_back(I->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

static void BM_FrontEndStdlib(benchmark::State &State) {
  CompileOptions O;
  O.Files = stdlibFiles();
  O.StdlibDir = LLMSYS_SOURCE_STDLIB_DIR;
  size_t Entities = 0;
  for (auto _ : State) {
    Compilation C(O);
    bool Ok = C.run();
    if (!Ok) {
      C.finish(errs());
      State.SkipWithError("stdlib does not check clean");
      return;
    }
    Entities = C.Spec.Entities.size();
    benchmark::DoNotOptimize(Entities);
  }
  State.counters["files"] = static_cast<double>(O.Files.size());
  State.counters["entities"] = static_cast<double>(Entities);
}
BENCHMARK(BM_FrontEndStdlib)->Unit(benchmark::kMillisecond);

static const char *const Megatron1T = R"(
import std.models.gpt
import std.systems.nvidia
system a100_3072 extends dgx_a100_pod128 { nodes = 384 }
train megatron_1t_3072 {
  model = megatron_1t
  system = a100_3072
  mapping {
    tp = 4; pp = 64; dp = 12; micro_batch = 4; global_batch = 3072
    recompute = full
    fusion = [bias_gelu, bias_dropout_add, layernorm, softmax]
  }
}
)";

/// Compiles spec text through a temporary file (the front end is not what
/// the speed benchmarks measure). Null after printing the diagnostics.
static std::unique_ptr<Compilation> compileText(const char *Text) {
  SmallString<128> Path;
  int FD;
  if (sys::fs::createTemporaryFile("llmsys-bench", "llmsys", FD, Path))
    return nullptr;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
  }
  CompileOptions O;
  O.Files = {std::string(Path.str())};
  O.StdlibDir = LLMSYS_SOURCE_STDLIB_DIR;
  auto C = std::make_unique<Compilation>(O);
  bool Ok = C->run();
  sys::fs::remove(Path);
  if (!Ok) {
    C->finish(errs());
    return nullptr;
  }
  return C;
}

/// The scenario, resolved once.
static ir::ScenarioConfig megatron1T() {
  std::unique_ptr<Compilation> C = compileText(Megatron1T);
  if (!C || C->Spec.Scenarios.empty())
    return {};
  return ir::scenarioFromSpec(*C->Spec.Scenarios.front());
}

static void trainingEval(benchmark::State &State, bool Tables,
                         bool ReusePrefix) {
  ir::ScenarioConfig S = megatron1T();
  if (S.Name.empty()) {
    State.SkipWithError("scenario does not check");
    return;
  }
  passes::PassContext Ctx;
  if (!driver::buildProgram(S, Ctx)) {
    State.SkipWithError("the mapping does not partition");
    return;
  }
  // The step time goes in the label (benchmark's DoNotOptimize on a double
  // is unreliable with GCC; the report object is kept alive instead).
  cost::TrainingReport R;
  // The passes and the cost alone: the verifier is left out (the build
  // above verified this program). A sweep verifies every point; its cost
  // is in BM_SweepGpt3Mapping.
  Ctx.Verify = false;
  passes::PrefixCache Prefix;
  if (ReusePrefix)
    Ctx.Prefix = &Prefix;
  // One program rebuilt point after point, as a sweep thread does.
  ir::Program P;
  for (auto _ : State) {
    driver::buildProgram(S, Ctx, P);
    cost::costTraining(P, Tables, R);
    benchmark::DoNotOptimize(R.Ops.data());
  }
  State.SetLabel("step " + std::to_string(R.StepTime) + " s");
}
static void BM_TrainingEval(benchmark::State &State) {
  trainingEval(State, /*Tables=*/false, /*ReusePrefix=*/true);
}
BENCHMARK(BM_TrainingEval)->Unit(benchmark::kMicrosecond);
static void BM_TrainingEvalAllPasses(benchmark::State &State) {
  trainingEval(State, /*Tables=*/false, /*ReusePrefix=*/false);
}
BENCHMARK(BM_TrainingEvalAllPasses)->Unit(benchmark::kMicrosecond);
static void BM_TrainingEvalFull(benchmark::State &State) {
  trainingEval(State, /*Tables=*/true, /*ReusePrefix=*/false);
}
BENCHMARK(BM_TrainingEvalFull)->Unit(benchmark::kMicrosecond);

static const char *const Gpt3Sweep = R"(
import std.systems.nvidia
import std.models.gpt
train gpt3 {
  model = gpt3_175b
  system = dgx_a100_pod128
  mapping { tp = 8; pp = 8; dp = 16; global_batch = 1536; sp = true }
  seq_len = 2048
}
sweep plans over gpt3 {
  mapping.tp in [1, 2, 4, 8]
  mapping.pp in 1 .. 128 step *2
  mapping.dp in 1 .. 1024 step *2
  mapping.micro_batch in 1 .. 16
  mapping.recompute in [none, selective, full]
  mapping.sp in [false, true]
  mapping.zero in [0, 1, 2, 3]
  mapping.dp_overlap in [false, true]
  mapping.tp_overlap in [false, true]
  mapping.distributed_optimizer in [false, true]
  where peak_memory <= 80 GB
  minimize step_time
}
)";

// Serving by in-flight batching: 10,000 requests of Llama 3.1 70B on 8
// H100s (FP8, TP 8), Poisson arrivals near capacity: one whole evaluation
// (the programs at the batches the run needs, and the step simulation).
static const char *const Traffic70B = R"(
import std.models.llama
import std.systems.nvidia
serve load {
  model = llama3_1_70b
  system = dgx_h100
  mapping { tp = 8; precision = fp8 }
  prompt = 1000 tokens
  output = 200 tokens
  traffic { requests = 10000; arrival = poisson { rate = 20 requests/s } }
}
)";
static void BM_Traffic10kRequests70B(benchmark::State &State) {
  std::unique_ptr<Compilation> C = compileText(Traffic70B);
  if (!C || C->Spec.Scenarios.empty()) {
    State.SkipWithError("scenario does not check");
    return;
  }
  ir::ScenarioConfig S = ir::scenarioFromSpec(*C->Spec.Scenarios.front());
  double P99 = 0;
  for (auto _ : State) {
    passes::PassContext Ctx;
    std::optional<driver::Evaluation> E = driver::evaluate(S, Ctx, /*Detail=*/false);
    if (!E) {
      State.SkipWithError("the scenario does not evaluate");
      return;
    }
    P99 = E->Serve.Traffic.Ttft.P99;
    benchmark::DoNotOptimize(E->Serve.Traffic.Steps);
  }
  State.SetLabel("p99 ttft " + std::to_string(P99) + " s");
}
BENCHMARK(BM_Traffic10kRequests70B)->Unit(benchmark::kMillisecond);

static void BM_SweepGpt3Mapping(benchmark::State &State) {
  std::unique_ptr<Compilation> C = compileText(Gpt3Sweep);
  if (!C || C->Spec.Sweeps.size() != 1) {
    State.SkipWithError("sweep does not check");
    return;
  }
  sweep::Options Opts;
  Opts.Threads = 2;
  sweep::Result R;
  for (auto _ : State) {
    R = sweep::run(C->Spec.Sweeps.front(), Opts);
    benchmark::DoNotOptimize(R.Kept.data());
  }
  uint64_t Costed = R.Total - R.InvalidMapping;
  State.counters["points"] = double(R.Total);
  State.counters["costed"] = double(Costed);
  State.counters["points/s"] = benchmark::Counter(
      double(R.Total), benchmark::Counter::kIsIterationInvariantRate);
  State.SetLabel("best step " +
                 (R.Kept.empty() ? std::string("-")
                                 : std::to_string(R.Kept.front().Figures[0])) +
                 " s");
}
BENCHMARK(BM_SweepGpt3Mapping)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
