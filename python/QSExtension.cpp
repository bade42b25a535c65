//===- QSExtension.cpp - the _qs Python extension (C API only) ------------===//
//
// A narrow, typed surface over the qs C API (include/qs-c) and the upstream
// MLIR C API: a context that turns diagnostics into Python exceptions,
// modules, types, attributes, values, a function builder, quantizer and
// tensor-type queries, pass pipelines and CPU execution. No C++ type of the
// compiler is used here; quant_storage/*.py adds the TE-named sugar.
//
//===----------------------------------------------------------------------===//

#include "qs-c/Builder.h"
#include "qs-c/Dialect.h"
#include "qs-c/Passes.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// Raised for every failure that MLIR reported; carries its diagnostics.
struct QSError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string toString(MlirStringRef s) { return std::string(s.data, s.length); }
MlirStringRef ref(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

void appendToString(MlirStringRef s, void *user) {
  static_cast<std::string *>(user)->append(s.data, s.length);
}

template <typename T, typename Fn>
std::string print(T handle, Fn fn) {
  std::string s;
  fn(handle, appendToString, &s);
  return s;
}

/// Owns an MlirContext with every dialect registered and collects its
/// diagnostics; `check` turns a failure into a QSError with them.
class Context {
public:
  Context() {
    ctx = mlirContextCreate();
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    qsRegisterAllDialects(registry);
    mlirContextAppendDialectRegistry(ctx, registry);
    mlirDialectRegistryDestroy(registry);
    mlirContextLoadAllAvailableDialects(ctx);
    mlirContextAttachDiagnosticHandler(ctx, &Context::handle, this, nullptr);
    qsRegisterPasses();
  }
  ~Context() { mlirContextDestroy(ctx); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  MlirContext get() const { return ctx; }
  void clear() { diagnostics.clear(); }
  /// What the last pipeline run reported (remarks, warnings) besides
  /// failing.
  const std::vector<std::string> &messages() const { return diagnostics; }
  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    // The errors and warnings; remarks (report-gemm-plans, which
    // qs.compile asks for) are not why it failed.
    for (const std::string &d : diagnostics)
      if (d.find(": remark: ") == std::string::npos)
        message += "\n" + d;
    diagnostics.clear();
    throw QSError(message);
  }

private:
  static MlirLogicalResult handle(MlirDiagnostic d, void *user) {
    std::string s = print(mlirDiagnosticGetLocation(d), mlirLocationPrint);
    const char *severity = "error";
    switch (mlirDiagnosticGetSeverity(d)) {
    case MlirDiagnosticWarning:
      severity = "warning";
      break;
    case MlirDiagnosticNote:
      severity = "note";
      break;
    case MlirDiagnosticRemark:
      severity = "remark";
      break;
    default:
      break;
    }
    s += std::string(": ") + severity + ": " + print(d, mlirDiagnosticPrint);
    for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(d); i < e; ++i)
      s += "\n  note: " + print(mlirDiagnosticGetNote(d, i), mlirDiagnosticPrint);
    static_cast<Context *>(user)->diagnostics.push_back(s);
    return mlirLogicalResultSuccess();
  }
  MlirContext ctx;
  std::vector<std::string> diagnostics;
};

using ContextRef = std::shared_ptr<Context>;

struct Type {
  ContextRef context;
  MlirType type;
  std::string str() const { return print(type, mlirTypePrint); }
  bool operator==(const Type &o) const { return mlirTypeEqual(type, o.type); }
};

struct Attribute {
  ContextRef context;
  MlirAttribute attr;
  std::string str() const { return print(attr, mlirAttributePrint); }
  bool operator==(const Attribute &o) const {
    return mlirAttributeEqual(attr, o.attr);
  }
};

Type parseType(const ContextRef &c, const std::string &text) {
  c->clear();
  MlirType t = mlirTypeParseGet(c->get(), ref(text));
  if (mlirTypeIsNull(t))
    c->fail("cannot parse the type '" + text + "'");
  return {c, t};
}

Attribute parseAttribute(const ContextRef &c, const std::string &text) {
  c->clear();
  MlirAttribute a = mlirAttributeParseGet(c->get(), ref(text));
  if (mlirAttributeIsNull(a))
    c->fail("cannot parse the attribute '" + text + "'");
  return {c, a};
}

/// Owns an MlirModule of a context.
struct Module {
  ContextRef context;
  MlirModule module;
  Module(ContextRef c, MlirModule m) : context(std::move(c)), module(m) {}
  ~Module() { mlirModuleDestroy(module); }
  Module(const Module &) = delete;
  std::string str() const {
    return print(mlirModuleGetOperation(module), mlirOperationPrint);
  }
};
using ModuleRef = std::shared_ptr<Module>;

struct Value {
  ModuleRef module;
  MlirValue value;
  Type type() const { return {module->context, mlirValueGetType(value)}; }
};

MlirLocation unknown(const ContextRef &c) {
  return mlirLocationUnknownGet(c->get());
}

/// A Python call site (file, line) that ops built from Python carry as their
/// location, so diagnostics point at the user's script; none = unknown.
using Site = std::optional<std::pair<std::string, unsigned>>;

MlirLocation siteLoc(const ContextRef &c, const Site &site) {
  if (!site)
    return unknown(c);
  return mlirLocationFileLineColGet(c->get(), ref(site->first), site->second, 1);
}

/// A func.func under construction.
struct Function {
  ModuleRef module;
  MlirOperation func;
  std::string name;

  MlirLocation loc(const Site &site) const {
    return siteLoc(module->context, site);
  }

  Value arg(intptr_t i) {
    MlirValue v = qsFuncGetArgument(func, i);
    if (mlirValueIsNull(v))
      throw nb::index_error(("@" + name + " has no argument " +
                             std::to_string(i)).c_str());
    return {module, v};
  }
  Value checked(MlirValue v, const char *op) {
    if (mlirValueIsNull(v))
      module->context->fail(std::string("cannot build ") + op + " in @" + name);
    return {module, v};
  }
};

MlirValue valueOrNull(const std::optional<Value> &v) {
  return v ? v->value : MlirValue{nullptr};
}

ModuleRef parseModule(const ContextRef &c, const std::string &text) {
  c->clear();
  MlirModule m = mlirModuleCreateParse(c->get(), ref(text));
  if (mlirModuleIsNull(m))
    c->fail("cannot parse the module");
  return std::make_shared<Module>(c, m);
}

MlirType fp8Type(const ContextRef &c, const std::string &name) {
  return parseType(c, name).type;
}

Attribute checkedAttr(const ContextRef &c, MlirAttribute a, const char *what) {
  if (mlirAttributeIsNull(a))
    c->fail(std::string("invalid ") + what + " quantizer");
  return {c, a};
}

/// The family and every parameter of a quantizer attribute.
nb::dict quantizerParams(const Attribute &a) {
  MlirAttribute q = a.attr;
  nb::dict d;
  if (!qsAttributeIsAQuantizer(q))
    throw nb::value_error(("not a quantizer attribute: " + a.str()).c_str());
  d["rowwise"] = qsQuantizerGetRowwise(q);
  d["columnwise"] = qsQuantizerGetColumnwise(q);
  d["element_format"] = print(qsQuantizerGetElementFormat(q), mlirTypePrint);
  d["class_name"] = toString(qsQuantizerGetClassName(q));
  if (qsAttributeIsAFp8Delayed(q)) {
    d["family"] = "fp8_delayed";
  } else if (qsAttributeIsAFp8Current(q)) {
    d["family"] = "fp8_current";
    d["force_pow_2_scales"] = qsFp8CurrentAttrGetForcePow2Scales(q);
    d["amax_epsilon"] = qsFp8CurrentAttrGetAmaxEpsilon(q);
  } else if (qsAttributeIsAMXFP8(q)) {
    d["family"] = "mxfp8";
    d["with_2d_quantization"] = qsMXFP8AttrGetWith2dQuantization(q);
    d["optimize_for_gemm"] = qsMXFP8AttrGetOptimizeForGemm(q);
  } else if (qsAttributeIsAFp8Block(q)) {
    d["family"] = "fp8_block";
    d["block_scaling_dim"] = qsFp8BlockAttrGetBlockScalingDim(q);
    d["force_pow_2_scales"] = qsFp8BlockAttrGetForcePow2Scales(q);
    d["amax_epsilon"] = qsFp8BlockAttrGetAmaxEpsilon(q);
  } else {
    d["family"] = "nvfp4";
    d["with_rht"] = qsNVFP4AttrGetWithRht(q);
    d["with_post_rht_amax"] = qsNVFP4AttrGetWithPostRhtAmax(q);
    d["with_2d_quantization"] = qsNVFP4AttrGetWith2dQuantization(q);
    d["stochastic_rounding"] = qsNVFP4AttrGetStochasticRounding(q);
    d["row_scaled_nvfp4"] = qsNVFP4AttrGetRowScaledNvfp4(q);
    d["optimize_for_gemm"] = qsNVFP4AttrGetOptimizeForGemm(q);
    d["with_random_sign_mask"] = qsNVFP4AttrGetWithRandomSignMask(q);
    d["nvfp4_use_4over6"] = qsNVFP4AttrGetUse4over6(q);
    d["nvfp4_e4m3_max"] = qsNVFP4AttrGetE4m3Max(q);
    MlirStringRef mode = qsNVFP4AttrGet4over6ErrMode(q);
    d["nvfp4_4over6_err_mode"] = std::string(mode.data, mode.length);
  }
  return d;
}

std::vector<int64_t> shapeOf(MlirType shaped) {
  std::vector<int64_t> shape;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(shaped); i < e; ++i)
    shape.push_back(mlirShapedTypeGetDimSize(shaped, i));
  return shape;
}

using TensorDesc = std::tuple<std::string, std::vector<int64_t>, std::string>;

/// (name, shape, element type) of every inner tensor of a !qs.tensor.
std::vector<TensorDesc> innerTensors(const Type &t, const std::string &chip) {
  if (!qsTypeIsATensor(t.type))
    throw nb::value_error(("not a !qs.tensor: " + t.str()).c_str());
  if (!chip.empty() && !qsChipIsValid(ref(chip)))
    throw nb::value_error(("invalid chip '" + chip +
                           "' (expected sm_<major><minor>[a|f])").c_str());
  std::vector<TensorDesc> result;
  for (intptr_t i = 0, e = qsTensorTypeGetNumInnerTensors(t.type, ref(chip));
       i < e; ++i) {
    MlirType inner = qsTensorTypeGetInnerTensorType(t.type, ref(chip), i);
    result.emplace_back(
        toString(qsTensorTypeGetInnerTensorName(t.type, ref(chip), i)),
        shapeOf(inner),
        print(mlirShapedTypeGetElementType(inner), mlirTypePrint));
  }
  return result;
}

/// The flattened inputs or results of a function: (type text, shape,
/// element type, inner name, origin, quantized type text or None, bytes per
/// element).
nb::list flatValues(const ModuleRef &m, const std::string &fn, bool results) {
  m->context->clear();
  intptr_t n = results ? qsFunctionGetNumFlatResults(m->module, ref(fn))
                       : qsFunctionGetNumFlatInputs(m->module, ref(fn));
  if (n < 0)
    m->context->fail("cannot run @" + fn);
  nb::list out;
  for (intptr_t i = 0; i < n; ++i) {
    QSFlatValue v = results ? qsFunctionGetFlatResult(m->module, ref(fn), i)
                            : qsFunctionGetFlatInput(m->module, ref(fn), i);
    MlirType element = mlirShapedTypeGetElementType(v.type);
    nb::dict d;
    d["type"] = print(v.type, mlirTypePrint);
    d["shape"] = nb::tuple(nb::cast(shapeOf(v.type)));
    d["element"] = print(element, mlirTypePrint);
    d["inner"] = toString(v.innerName);
    d["origin"] = v.origin;
    d["quantized"] = mlirTypeIsNull(v.quantized)
                         ? nb::object(nb::none())
                         : nb::cast(print(v.quantized, mlirTypePrint));
    d["width"] = qsGetElementByteWidth(element);
    out.append(d);
  }
  return out;
}

using RunFn = MlirLogicalResult (*)(MlirModule, MlirStringRef, intptr_t,
                                    const void *const *, intptr_t,
                                    void *const *);

std::vector<nb::bytes> runOn(RunFn run, const char *where,
                             const ModuleRef &m, const std::string &fn,
                             const std::vector<nb::bytes> &inputs) {
  nb::list outs = flatValues(m, fn, /*results=*/true);
  nb::list ins = flatValues(m, fn, /*results=*/false);
  if (inputs.size() != nb::len(ins))
    throw nb::value_error(("@" + fn + " takes " + std::to_string(nb::len(ins)) +
                           " flattened inputs, got " +
                           std::to_string(inputs.size())).c_str());
  std::vector<const void *> inPtrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    nb::dict d = nb::cast<nb::dict>(ins[i]);
    size_t expected = nb::cast<size_t>(d["width"]);
    for (int64_t s : nb::cast<std::vector<int64_t>>(d["shape"]))
      expected *= s;
    if (inputs[i].size() != expected)
      throw nb::value_error(("input " + std::to_string(i) + " has " +
                             std::to_string(inputs[i].size()) +
                             " bytes, expected " + std::to_string(expected))
                                .c_str());
    inPtrs.push_back(inputs[i].c_str());
  }
  std::vector<std::string> buffers;
  for (nb::handle h : outs) {
    nb::dict d = nb::cast<nb::dict>(h);
    size_t bytes = nb::cast<size_t>(d["width"]);
    for (int64_t s : nb::cast<std::vector<int64_t>>(d["shape"]))
      bytes *= s;
    buffers.emplace_back(bytes, '\0');
  }
  std::vector<void *> outPtrs;
  for (std::string &b : buffers)
    outPtrs.push_back(b.data());
  m->context->clear();
  if (mlirLogicalResultIsFailure(run(m->module, ref(fn), inPtrs.size(),
                                     inPtrs.data(), outPtrs.size(),
                                     outPtrs.data())))
    m->context->fail("running @" + fn + " on the " + where + " failed");
  std::vector<nb::bytes> result;
  for (std::string &b : buffers)
    result.emplace_back(b.data(), b.size());
  return result;
}

} // namespace

NB_MODULE(_qs, m) {
  m.doc() = "quant-storage C API bindings (use the quant_storage package)";
  nb::exception<QSError>(m, "QSError");

  nb::class_<Context>(m, "_ContextImpl");
  struct PyContext {
    ContextRef impl = std::make_shared<Context>();
  };
  nb::class_<PyContext>(m, "Context")
      .def(nb::init<>())
      .def("parse_type",
           [](PyContext &c, const std::string &t) {
             return parseType(c.impl, t);
           })
      .def("parse_attribute",
           [](PyContext &c, const std::string &t) {
             return parseAttribute(c.impl, t);
           })
      .def("parse_module",
           [](PyContext &c, const std::string &t) {
             return parseModule(c.impl, t);
           })
      .def("create_module",
           [](PyContext &c) {
             return std::make_shared<Module>(
                 c.impl, mlirModuleCreateEmpty(unknown(c.impl)));
           })
      .def("ranked_tensor_type",
           [](PyContext &c, const std::vector<int64_t> &shape,
              const std::string &element) {
             MlirType e = parseType(c.impl, element).type;
             // mlirRankedTensorTypeGet would build tensor<-32x64xbf16>
             // (printed, never parsed back) or, for INT64_MIN, a dynamic
             // size that nothing here can run.
             c.impl->clear();
             for (size_t i = 0; i < shape.size(); ++i)
               if (shape[i] < 0)
                 c.impl->fail("invalid tensor type: dimension " +
                              std::to_string(i) + " must be >= 0, got " +
                              std::to_string(shape[i]));
             return Type{c.impl, mlirRankedTensorTypeGet(
                                     shape.size(), shape.data(), e,
                                     mlirAttributeGetNull())};
           })
      .def("tensor_type",
           [](PyContext &c, const std::vector<int64_t> &shape,
              const std::string &element, const Attribute &quantizer) {
             MlirType e = parseType(c.impl, element).type;
             c.impl->clear();
             MlirType t = qsTensorTypeGet(c.impl->get(), shape.size(),
                                          shape.data(), e, quantizer.attr);
             if (mlirTypeIsNull(t))
               c.impl->fail("invalid !qs.tensor type");
             return Type{c.impl, t};
           })
      .def("fp8_delayed",
           [](PyContext &c, const std::string &dtype, bool r, bool col) {
             MlirType t = fp8Type(c.impl, dtype);
             c.impl->clear();
             return checkedAttr(c.impl,
                                qsFp8DelayedAttrGet(c.impl->get(), t, r, col),
                                "Float8Quantizer");
           })
      .def("fp8_current",
           [](PyContext &c, const std::string &dtype, bool r, bool col,
              bool pow2, float eps) {
             MlirType t = fp8Type(c.impl, dtype);
             c.impl->clear();
             return checkedAttr(
                 c.impl,
                 qsFp8CurrentAttrGet(c.impl->get(), t, r, col, pow2, eps),
                 "Float8CurrentScalingQuantizer");
           })
      .def("mxfp8",
           [](PyContext &c, const std::string &dtype, bool r, bool col,
              bool twoD, bool gemm) {
             MlirType t = fp8Type(c.impl, dtype);
             c.impl->clear();
             return checkedAttr(
                 c.impl, qsMXFP8AttrGet(c.impl->get(), t, r, col, twoD, gemm),
                 "MXFP8Quantizer");
           })
      .def("fp8_block",
           [](PyContext &c, const std::string &dtype, bool r, bool col,
              int64_t dim, bool pow2, float eps) {
             MlirType t = fp8Type(c.impl, dtype);
             c.impl->clear();
             return checkedAttr(c.impl,
                                qsFp8BlockAttrGet(c.impl->get(), t, r, col, dim,
                                                  pow2, eps),
                                "Float8BlockQuantizer");
           })
      .def("nvfp4", [](PyContext &c, bool r, bool col, bool rht, bool postRht,
                       bool twoD, bool sr, bool rowScaled, bool gemm,
                       bool signs, bool fourOverSix, int64_t e4m3Max,
                       const std::string &errMode) {
        c.impl->clear();
        return checkedAttr(
            c.impl,
            qsNVFP4AttrGet(c.impl->get(), r, col, rht, postRht, twoD, sr,
                           rowScaled, gemm, signs, fourOverSix, e4m3Max,
                           mlirStringRefCreate(errMode.data(), errMode.size())),
            "NVFP4Quantizer");
      });

  nb::class_<Type>(m, "Type")
      .def("__str__", &Type::str)
      .def("__repr__", [](const Type &t) { return "Type(" + t.str() + ")"; })
      .def("__eq__", &Type::operator==)
      .def("__hash__", [](const Type &t) { return std::hash<std::string>()(t.str()); })
      .def_prop_ro("is_quantized",
                   [](const Type &t) { return qsTypeIsATensor(t.type); })
      .def_prop_ro("shape",
                   [](const Type &t) {
                     if (qsTypeIsATensor(t.type)) {
                       std::vector<int64_t> s;
                       for (intptr_t i = 0, e = qsTensorTypeGetRank(t.type);
                            i < e; ++i)
                         s.push_back(qsTensorTypeGetDimSize(t.type, i));
                       return s;
                     }
                     if (!mlirTypeIsARankedTensor(t.type))
                       throw nb::value_error("not a ranked tensor type");
                     return shapeOf(t.type);
                   })
      .def_prop_ro("element_type",
                   [](const Type &t) {
                     MlirType e = qsTypeIsATensor(t.type)
                                      ? qsTensorTypeGetElementType(t.type)
                                      : mlirShapedTypeGetElementType(t.type);
                     return print(e, mlirTypePrint);
                   })
      .def_prop_ro("quantizer",
                   [](const Type &t) -> std::optional<Attribute> {
                     if (!qsTypeIsATensor(t.type))
                       return std::nullopt;
                     return Attribute{t.context,
                                      qsTensorTypeGetQuantizer(t.type)};
                   })
      .def("inner_tensors", &innerTensors, "chip"_a = "")
      .def("storage_metadata", [](const Type &t) {
        if (!qsTypeIsATensor(t.type))
          throw nb::value_error(("not a !qs.tensor: " + t.str()).c_str());
        MlirAttribute dict = qsTensorTypeGetStorageMetadata(t.type);
        nb::dict d;
        for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(dict); i < e;
             ++i) {
          MlirNamedAttribute na = mlirDictionaryAttrGetElement(dict, i);
          MlirAttribute v = na.attribute;
          nb::object value;
          if (mlirAttributeIsAString(v))
            value = nb::cast(toString(mlirStringAttrGetValue(v)));
          else if (mlirAttributeIsABool(v))
            value = nb::cast(mlirBoolAttrGetValue(v));
          else if (mlirAttributeIsAInteger(v))
            value = nb::cast(mlirIntegerAttrGetValueInt(v));
          else if (mlirAttributeIsAType(v))
            value = nb::cast(print(mlirTypeAttrGetValue(v), mlirTypePrint));
          else
            value = nb::cast(print(v, mlirAttributePrint));
          d[nb::cast(toString(mlirIdentifierStr(na.name)))] = value;
        }
        return d;
      });

  nb::class_<Attribute>(m, "Attribute")
      .def("__str__", &Attribute::str)
      .def("__repr__",
           [](const Attribute &a) { return "Attribute(" + a.str() + ")"; })
      .def("__eq__", &Attribute::operator==)
      .def_prop_ro("is_quantizer",
                   [](const Attribute &a) { return qsAttributeIsAQuantizer(a.attr); })
      .def("quantizer_params", &quantizerParams)
      .def("with_usage", [](const Attribute &a, bool r, bool c) {
        a.context->clear();
        MlirAttribute q = qsQuantizerWithUsage(a.attr, r, c);
        if (mlirAttributeIsNull(q))
          a.context->fail("invalid usage");
        return Attribute{a.context, q};
      });

  nb::class_<Value>(m, "Value").def_prop_ro("type", &Value::type);

  nb::class_<Module>(m, "Module")
      .def("__str__", &Module::str)
      .def("verify",
           [](const ModuleRef &mod) {
             mod->context->clear();
             if (!mlirOperationVerify(mlirModuleGetOperation(mod->module)))
               mod->context->fail("the module does not verify");
           })
      .def("clone",
           [](const ModuleRef &mod) {
             MlirOperation op =
                 mlirOperationClone(mlirModuleGetOperation(mod->module));
             return std::make_shared<Module>(mod->context,
                                             mlirModuleFromOperation(op));
           })
      .def("run_pipeline",
           [](const ModuleRef &mod, const std::string &pipeline) {
             mod->context->clear();
             if (mlirLogicalResultIsFailure(
                     qsRunPassPipeline(mod->module, ref(pipeline))))
               mod->context->fail("the pipeline '" + pipeline + "' failed");
           })
      .def("diagnostics",
           [](const ModuleRef &mod) { return mod->context->messages(); })
      .def("flat_inputs",
           [](const ModuleRef &mod, const std::string &fn) {
             return flatValues(mod, fn, false);
           })
      .def("flat_results",
           [](const ModuleRef &mod, const std::string &fn) {
             return flatValues(mod, fn, true);
           })
      .def("run_cpu",
           [](const ModuleRef &m, const std::string &fn,
              const std::vector<nb::bytes> &inputs) {
             return runOn(qsRunOnCPU, "CPU", m, fn, inputs);
           })
      .def("run_cuda",
           [](const ModuleRef &m, const std::string &fn,
              const std::vector<nb::bytes> &inputs) {
             return runOn(qsRunOnCUDA, "CUDA device", m, fn, inputs);
           })
      .def("add_function", [](const ModuleRef &mod, const std::string &name,
                              const std::vector<Type> &args, const Site &site) {
        std::vector<MlirType> types;
        for (const Type &t : args)
          types.push_back(t.type);
        mod->context->clear();
        MlirOperation f = qsFuncCreate(mod->module, ref(name), types.size(),
                                       types.data(), siteLoc(mod->context, site));
        if (mlirOperationIsNull(f))
          mod->context->fail("cannot create @" + name);
        return Function{mod, f, name};
      });

  nb::class_<Function>(m, "Function")
      .def_ro("name", &Function::name)
      .def("arg", &Function::arg)
      .def("empty",
           [](Function &f, const Type &t, const Site &site) {
             f.module->context->clear();
             return f.checked(qsBuildEmpty(f.func, t.type, f.loc(site)),
                              "qs.empty");
           })
      .def(
          "quantize",
          [](Function &f, const Value &x, const Type &t,
             std::optional<Value> scale, std::optional<Value> amax,
             std::optional<Value> rng,
             const std::vector<std::pair<std::string, std::string>> &options,
             const Site &site) {
            f.module->context->clear();
            MlirLocation loc = f.loc(site);
            MlirValue updated{nullptr};
            Value q =
                f.checked(qsBuildQuantize(f.func, x.value, t.type,
                                          valueOrNull(scale), valueOrNull(amax),
                                          valueOrNull(rng), &updated, loc),
                          "qs.quantize");
            // Kernel options (qs.quantize_*); a rejected one removes the
            // new, still unused op.
            MlirContext ctx = f.module->context->get();
            for (const auto &[name, value] : options)
              if (!qsQuantizeSetKernelOption(q.value, ref(name),
                                             mlirStringAttrGet(ctx, ref(value)),
                                             loc)) {
                mlirOperationDestroy(mlirOpResultGetOwner(q.value));
                f.module->context->fail(
                    "cannot set the quantize kernel option " + name + " in @" +
                    f.name);
              }
            std::optional<Value> u;
            if (!mlirValueIsNull(updated))
              u = Value{f.module, updated};
            return std::make_tuple(q, u);
          },
          "x"_a, "type"_a, "scale"_a = nb::none(), "amax"_a = nb::none(),
          "rng"_a = nb::none(),
          "options"_a = std::vector<std::pair<std::string, std::string>>(),
          "site"_a = nb::none())
      .def("amax",
           [](Function &f, const Value &x, const Type &t, const Site &site) {
             f.module->context->clear();
             return f.checked(qsBuildAmax(f.func, x.value, t.type, f.loc(site)),
                              "qs.amax");
           })
      .def("bias_grad",
           [](Function &f, const Value &x, const Type &t, const Site &site) {
             f.module->context->clear();
             return f.checked(
                 qsBuildBiasGrad(f.func, x.value, t.type, f.loc(site)),
                 "qs.bias_grad");
           })
      .def(
          "elementwise",
          [](Function &f, const std::string &kind,
             const std::vector<Value> &operands, const Type &t,
             const Site &site) {
            f.module->context->clear();
            std::vector<MlirValue> values;
            for (const Value &v : operands)
              values.push_back(v.value);
            return f.checked(qsBuildElementwise(f.func, ref(kind),
                                                values.size(), values.data(),
                                                t.type, f.loc(site)),
                             kind.c_str());
          },
          "kind"_a, "operands"_a, "type"_a, "site"_a = nb::none())
      .def(
          "amax_and_scale_update",
          [](Function &f, const Value &history, const Value &scale,
             const std::optional<Value> &amax, const Type &fp8Dtype,
             int64_t margin, const std::string &algo, const Site &site) {
            f.module->context->clear();
            MlirValue updatedScale{nullptr};
            Value h = f.checked(qsBuildAmaxAndScaleUpdate(
                                    f.func, history.value, scale.value,
                                    valueOrNull(amax), fp8Dtype.type, margin,
                                    ref(algo), &updatedScale, f.loc(site)),
                                "qs.amax_and_scale_update");
            return std::make_tuple(h, Value{f.module, updatedScale});
          },
          "history"_a, "scale"_a, "amax"_a.none(), "fp8_dtype"_a, "margin"_a,
          "amax_compute_algo"_a, "site"_a = nb::none())
      .def("dequantize",
           [](Function &f, const Value &q, const Type &t, const Site &site) {
             f.module->context->clear();
             return f.checked(qsBuildDequantize(f.func, q.value, t.type,
                                                f.loc(site)),
                              "qs.dequantize");
           })
      .def("update_usage",
           [](Function &f, const Value &q, const Type &t, const Site &site) {
             f.module->context->clear();
             return f.checked(qsBuildUpdateUsage(f.func, q.value, t.type,
                                                 f.loc(site)),
                              "qs.update_usage");
           })
      .def(
          "gemm",
          [](Function &f, const Value &a, const Value &b, bool ta, bool tb,
             std::optional<Value> bias, std::optional<Value> acc, const Type &t,
             std::optional<Value> scale, std::optional<Value> amax, bool fast,
             const std::vector<std::pair<
                 std::string, std::variant<int64_t, std::string>>> &options,
             const Site &site) {
            f.module->context->clear();
            MlirLocation loc = f.loc(site);
            MlirValue updated{nullptr};
            Value y = f.checked(qsBuildGemm(f.func, a.value, b.value, ta, tb,
                                            valueOrNull(bias), valueOrNull(acc),
                                            t.type, valueOrNull(scale),
                                            valueOrNull(amax), &updated, loc),
                                "qs.gemm");
            if (fast)
              qsGemmSetFastAccumulate(y.value, true, loc);
            // Kernel options (qs.gemm_*); a rejected one removes the new,
            // still unused op.
            MlirContext ctx = f.module->context->get();
            for (const auto &[name, value] : options) {
              MlirAttribute attr =
                  std::holds_alternative<int64_t>(value)
                      ? mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64),
                                           std::get<int64_t>(value))
                      : mlirStringAttrGet(ctx,
                                          ref(std::get<std::string>(value)));
              if (!qsGemmSetKernelOption(y.value, ref(name), attr, loc)) {
                mlirOperationDestroy(mlirOpResultGetOwner(y.value));
                f.module->context->fail("cannot set the GEMM kernel option " +
                                        name + " in @" + f.name);
              }
            }
            std::optional<Value> u;
            if (!mlirValueIsNull(updated))
              u = Value{f.module, updated};
            return std::make_tuple(y, u);
          },
          "a"_a, "b"_a, "transpose_a"_a, "transpose_b"_a, "bias"_a.none(),
          "accumulate"_a.none(), "type"_a, "scale"_a.none(), "amax"_a.none(),
          "fast_accumulate"_a, "options"_a, "site"_a = nb::none())
      .def("assemble",
           [](Function &f, const std::vector<Value> &inputs, const Type &t,
              const Site &site) {
             std::vector<MlirValue> values;
             for (const Value &v : inputs)
               values.push_back(v.value);
             f.module->context->clear();
             return f.checked(qsBuildAssemble(f.func, values.size(),
                                              values.data(), t.type,
                                              f.loc(site)),
                              "qs.assemble");
           })
      .def("disassemble",
           [](Function &f, const Value &q, const Site &site) {
             std::vector<MlirValue> outs(16, MlirValue{nullptr});
             f.module->context->clear();
             intptr_t n = qsBuildDisassemble(f.func, q.value, outs.size(),
                                             outs.data(),
                                             f.loc(site));
             if (n < 0)
               f.module->context->fail("cannot build qs.disassemble in @" + f.name);
             std::vector<Value> result;
             for (intptr_t i = 0; i < n; ++i)
               result.push_back({f.module, outs[i]});
             return result;
           })
      .def("finish", [](Function &f, const std::vector<Value> &results,
                        const Site &site) {
        std::vector<MlirValue> values;
        for (const Value &v : results)
          values.push_back(v.value);
        f.module->context->clear();
        if (mlirLogicalResultIsFailure(qsFuncFinish(
                f.func, values.size(), values.data(), f.loc(site))))
          f.module->context->fail("cannot finish @" + f.name);
      });

  m.def("chip_is_valid",
        [](const std::string &chip) { return qsChipIsValid(ref(chip)); });
  m.def("cuda_device", []() {
    std::string text;
    bool found = qsDescribeCUDADevice(
        [](MlirStringRef s, void *user) {
          static_cast<std::string *>(user)->append(s.data, s.length);
        },
        &text);
    return std::make_pair(found, text);
  });
}
