//===- JsonToPython.h - llvm::json values as Python objects -----*- C++ -*-===//
//
// The Python module hands out the same reports the command line prints as
// JSON (docs/report-format.md): objects become dicts (keys sorted: llvm::json
// keeps no order), arrays lists, numbers int or float, null None.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PYTHON_JSONTOPYTHON_H
#define LLMSYS_PYTHON_JSONTOPYTHON_H

#include "llvm/Support/JSON.h"

#include <pybind11/pybind11.h>

namespace llmsys {
namespace python {

pybind11::object toPython(const llvm::json::Value &V);

} // namespace python
} // namespace llmsys

#endif
