//===- llmsys-bench.cpp - speed figures -------------------------------------===//
//
// Benchmarks print figures; targets live here, not in timed tests:
//   BM_FrontEndStdlib  parse and check every file of stdlib/ (target: well
//                      under 50 ms)
//
//===----------------------------------------------------------------------===//

#include "Sema/Compilation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <benchmark/benchmark.h>

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

BENCHMARK_MAIN();
