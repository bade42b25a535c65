//===- NpyIO.cpp - .npy files for qs-run ----------------------------------===//
//
// Compiled with exceptions (xtensor reports errors by throwing); nothing
// escapes this file.
//
//===----------------------------------------------------------------------===//

#include "NpyIO.h"
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <xtensor/xnpy.hpp>

using namespace qs_run;

static llvm::Error fail(const std::string &message) {
  return llvm::make_error<llvm::StringError>(message,
                                             llvm::inconvertibleErrorCode());
}

/// ml_dtypes' element types (bfloat16, the FP8, E8M0 and FP4 types) are
/// void types to the .npy format: an array of one is saved with the type
/// string '<V2' or '|V1', which xtensor rejects. Its elements are the raw
/// bits qs-run reads from the unsigned integer of the same width. Returns
/// the position of such a type string (1 or 2 bytes wide) in the file's
/// first bytes `head`, if it has one; readNpy then reads the file with
/// '<u2' / '|u1' there (as long: the header's padding stands).
static std::optional<std::size_t> voidTypeAt(const std::string &head) {
  // Magic (6 bytes), version (2), header length (2 bytes for version 1,
  // 4 after), the header dictionary.
  if (head.size() < 10 || head.compare(0, 6, "\x93NUMPY") != 0)
    return std::nullopt;
  std::size_t key = head.find("'descr': '");
  if (key == std::string::npos)
    return std::nullopt;
  std::size_t at = key + 10;
  if (head.size() < at + 4 || (head[at] != '<' && head[at] != '|') ||
      head[at + 1] != 'V' || (head[at + 2] != '1' && head[at + 2] != '2') ||
      head[at + 3] != '\'')
    return std::nullopt;
  return at;
}

static llvm::Expected<NpyArray> parseNpy(std::istream &stream,
                                         const std::string &path) {
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

llvm::Expected<NpyArray> qs_run::readNpy(const std::string &path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return fail("cannot open '" + path + "'");
  // The header (at most 4 KiB in files NumPy writes for these ranks).
  std::string head(4096, '\0');
  stream.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(stream.gcount()));
  std::optional<std::size_t> at = voidTypeAt(head);
  if (!at) {
    stream.clear();
    stream.seekg(0);
    return parseNpy(stream, path);
  }
  std::string contents = head;
  contents.append(std::istreambuf_iterator<char>(stream),
                  std::istreambuf_iterator<char>());
  contents.replace(*at, 3, contents[*at + 2] == '2' ? "<u2" : "|u1");
  std::istringstream patched(std::move(contents));
  return parseNpy(patched, path);
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
