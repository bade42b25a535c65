//===- NpyIO.cpp - .npy files for qs-run ----------------------------------===//
//
// Compiled with exceptions (xtensor reports errors by throwing); nothing
// escapes this file.
//
//===----------------------------------------------------------------------===//

#include "NpyIO.h"
#include <exception>
#include <fstream>
#include <xtensor/xnpy.hpp>

using namespace qs_run;

static llvm::Error fail(const std::string &message) {
  return llvm::make_error<llvm::StringError>(message,
                                             llvm::inconvertibleErrorCode());
}

llvm::Expected<NpyArray> qs_run::readNpy(const std::string &path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return fail("cannot open '" + path + "'");
  try {
    xt::detail::npy_file file = xt::detail::load_npy_file(stream);
    if (stream.fail())
      return fail("'" + path + "' is truncated: its data is shorter than its "
                               "header says");
    if (file.m_fortran_order)
      return fail("'" + path + "' is Fortran-ordered; save a C-ordered array "
                               "(np.ascontiguousarray)");
    NpyArray array;
    array.dtype = file.m_typestring;
    for (std::size_t d : file.m_shape)
      array.shape.push_back(static_cast<int64_t>(d));
    array.bytes.assign(file.ptr(), file.ptr() + file.n_bytes());
    return array;
  } catch (const std::exception &e) {
    return fail("'" + path + "' is not a valid .npy file: " + e.what());
  } catch (...) {
    return fail("'" + path + "' is not a valid .npy file");
  }
}

llvm::Error qs_run::writeNpy(const std::string &path, const std::string &dtype,
                             const std::vector<int64_t> &shape,
                             const std::vector<char> &bytes) {
  std::ofstream stream(path, std::ios::binary);
  if (!stream)
    return fail("cannot write '" + path + "'");
  try {
    std::vector<std::size_t> dims(shape.begin(), shape.end());
    xt::detail::write_header(stream, dtype, /*fortran_order=*/false, dims);
    stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  } catch (const std::exception &e) {
    return fail("cannot write '" + path + "': " + e.what());
  }
  if (!stream)
    return fail("cannot write '" + path + "'");
  return llvm::Error::success();
}
