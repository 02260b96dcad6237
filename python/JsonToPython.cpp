//===- JsonToPython.cpp - llvm::json values as Python objects -------------===//

#include "JsonToPython.h"

namespace py = pybind11;

namespace llmsys {
namespace python {

py::object toPython(const llvm::json::Value &V) {
  switch (V.kind()) {
  case llvm::json::Value::Null:
    return py::none();
  case llvm::json::Value::Boolean:
    return py::bool_(*V.getAsBoolean());
  case llvm::json::Value::Number:
    if (std::optional<int64_t> I = V.getAsInteger())
      return py::int_(*I);
    return py::float_(*V.getAsNumber());
  case llvm::json::Value::String:
    return py::str(V.getAsString()->str());
  case llvm::json::Value::Array: {
    py::list L;
    for (const llvm::json::Value &E : *V.getAsArray())
      L.append(toPython(E));
    return std::move(L);
  }
  case llvm::json::Value::Object: {
    // llvm::json::Object is unordered: its keys sorted keep the output
    // deterministic.
    const llvm::json::Object &O = *V.getAsObject();
    std::vector<llvm::StringRef> Keys;
    for (const auto &KV : O)
      Keys.push_back(KV.first);
    std::sort(Keys.begin(), Keys.end());
    py::dict D;
    for (llvm::StringRef K : Keys)
      D[py::str(K.str())] = toPython(*O.get(K));
    return std::move(D);
  }
  }
  return py::none();
}

} // namespace python
} // namespace llmsys
