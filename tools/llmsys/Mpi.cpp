//===- Mpi.cpp - a sweep over the ranks of an MPI job ---------------------===//
//
// `llmsys sweep` under mpirun or srun (docs/cli.md): the ranks share the
// grid and rank 0 reports (lib/Sweep's Exchange, over MPI). Built when Open
// MPI is found (LLMSYS_MPI); a build without it refuses to run as several
// ranks, each of which would sweep the whole grid.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "llvm/Support/Process.h"

#include <climits>

#if LLMSYS_MPI
// The C API alone (Open MPI's and MPICH's deprecated C++ bindings off).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

using namespace llvm;

namespace llmsys {
namespace driver {

/// The size of the job this process was started in by an MPI launcher (Open
/// MPI, PMI or PMIx, as Slurm's srun sets), or 0 when none started it.
static unsigned launcherSize() {
  for (const char *Var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (std::optional<std::string> V = sys::Process::GetEnv(Var)) {
      unsigned N = 0;
      if (!StringRef(*V).getAsInteger(10, N))
        return N;
    }
  // PMIx alone (srun --mpi=pmix) sets the rank, not always the size.
  if (sys::Process::GetEnv("PMIX_RANK"))
    return 1;
  return 0;
}

#if LLMSYS_MPI
namespace {
class MpiExchange : public sweep::Exchange {
public:
  MpiExchange() {
    int Provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &Provided);
    int R = 0, N = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &R);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    Rank = unsigned(R);
    Size = unsigned(N);
  }
  ~MpiExchange() override { MPI_Finalize(); }
  unsigned rank() const override { return Rank; }
  unsigned size() const override { return Size; }

  std::vector<uint64_t> allGather(uint64_t Mine) override {
    std::vector<uint64_t> All(Size);
    MPI_Allgather(&Mine, 1, MPI_UINT64_T, All.data(), 1, MPI_UINT64_T,
                  MPI_COMM_WORLD);
    return All;
  }

  std::vector<std::string> gather(const std::string &Mine) override {
    uint64_t N = Mine.size();
    std::vector<uint64_t> Sizes(Rank == 0 ? Size : 1);
    MPI_Gather(&N, 1, MPI_UINT64_T, Sizes.data(), 1, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    std::vector<int> Counts, Displs;
    std::string All;
    if (Rank == 0) {
      uint64_t Total = 0;
      for (uint64_t S : Sizes) {
        // A wave is at most 256 threads x 2048 points of a few hundred
        // bytes: far below what an int counts.
        if (S > uint64_t(INT_MAX) || Total + S > uint64_t(INT_MAX)) {
          errs() << "llmsys: error: a wave of the sweep is larger than MPI "
                    "can gather at once (2 GiB)\n";
          MPI_Abort(MPI_COMM_WORLD, ExitBadInput);
        }
        Counts.push_back(int(S));
        Displs.push_back(int(Total));
        Total += S;
      }
      All.resize(Total);
    }
    MPI_Gatherv(Mine.data(), int(N), MPI_BYTE, All.data(), Counts.data(),
                Displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    std::vector<std::string> Out;
    if (Rank == 0)
      for (unsigned I = 0; I < Size; ++I)
        Out.push_back(All.substr(Displs[I], Counts[I]));
    return Out;
  }

private:
  unsigned Rank = 0, Size = 1;
};
} // namespace
#endif

std::unique_ptr<sweep::Exchange> joinMpiJob(std::string &Error) {
  unsigned Launched = launcherSize();
  if (Launched == 0)
    return nullptr;
#if LLMSYS_MPI
  auto X = std::make_unique<MpiExchange>();
  if (X->size() == 1)
    return nullptr; // one rank: the sweep as without mpirun
  return X;
#else
  if (Launched > 1)
    Error = "this llmsys was built without MPI (libopenmpi-dev not found; "
            "tools/install-deps.sh installs it): under an MPI launcher each "
            "of the " + std::to_string(Launched) +
            " ranks would run the whole sweep";
  return nullptr;
#endif
}

} // namespace driver
} // namespace llmsys
