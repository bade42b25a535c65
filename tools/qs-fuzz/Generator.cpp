//===- Generator.cpp - structure-aware qs program generator ---------------===//

#include "Generator.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <map>
#include <sstream>
#include <vector>

namespace qs_fuzz {
namespace {

/// A quantizer attribute: family and explicitly written parameters.
struct Quantizer {
  std::string family;
  std::map<std::string, std::string> params;

  std::string str() const {
    std::string s = "#qs." + family;
    if (params.empty())
      return s;
    s += "<";
    bool first = true;
    for (const auto &[key, value] : params) {
      s += (first ? "" : ", ") + key + " = " + value;
      first = false;
    }
    return s + ">";
  }
};

/// A value of the function being generated.
struct Value {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  bool quantized = false;
  Quantizer quantizer;

  std::string type() const {
    std::string s;
    for (int64_t d : shape)
      s += std::to_string(d) + "x";
    s += dtype;
    return quantized ? "!qs.tensor<" + s + ", " + quantizer.str() + ">"
                     : "tensor<" + s + ">";
  }
};

class Generator {
public:
  Generator(const uint8_t *data, size_t size) : in(data, size) {}

  std::string module() {
    std::ostringstream os;
    static const char *chips[] = {nullptr, "sm_90a", "sm_100a", "sm_90a",
                                  "sm_100a", "sm_120a", "sm_80"};
    const char *chip = chips[in.ConsumeIntegralInRange<size_t>(0, 6)];
    // The GEMM kernels' knobs, valid and not (the dialect rejects 192 and
    // persistent blocks below 1).
    static const int64_t tileWidths[] = {0, 0, 128, 256, 192};
    static const int64_t persistent[] = {0, 0, 0, 1, 3, 132, -1};
    int64_t tileN = tileWidths[in.ConsumeIntegralInRange<size_t>(0, 4)];
    int64_t blocks = persistent[in.ConsumeIntegralInRange<size_t>(0, 6)];
    static const int64_t clusters[] = {0, 0, 0, 1, 2, 2, 3};
    int64_t cluster = clusters[in.ConsumeIntegralInRange<size_t>(0, 6)];
    static const char *epilogues[] = {nullptr, nullptr, "direct", "tma"};
    const char *epilogue = epilogues[in.ConsumeIntegralInRange<size_t>(0, 3)];
    // Split-K ranges: often not dividing the k-tiles (a diagnostic), 0 and
    // -1 rejected by the dialect, kAutoSplit the model's choice ("auto"),
    // kStreamK stream-K ("stream").
    constexpr int64_t kAutoSplit = -2, kStreamK = -3;
    static const int64_t splits[] = {0, 0, 0, 1, 2, 3, 4, -1, kAutoSplit,
                                     kStreamK};
    int64_t splitK = splits[in.ConsumeIntegralInRange<size_t>(0, 9)];
    // Who sums the planes ("atomic": rejected by the dialect).
    static const char *reduces[] = {nullptr, nullptr, "kernel",
                                    "fused", "fused", "atomic"};
    const char *reduce = reduces[in.ConsumeIntegralInRange<size_t>(0, 5)];
    std::vector<std::string> attrs;
    if (chip)
      attrs.push_back(std::string("qs.chip = \"") + chip + "\"");
    if (tileN)
      attrs.push_back("qs.gemm_tile_n = " + std::to_string(tileN) + " : i64");
    if (blocks)
      attrs.push_back("qs.gemm_persistent = " + std::to_string(blocks) +
                      " : i64");
    if (cluster)
      attrs.push_back("qs.gemm_cluster = " + std::to_string(cluster) +
                      " : i64");
    if (epilogue)
      attrs.push_back(std::string("qs.gemm_epilogue = \"") + epilogue + "\"");
    if (splitK == kAutoSplit)
      attrs.push_back("qs.gemm_split_k = \"auto\"");
    else if (splitK == kStreamK)
      attrs.push_back("qs.gemm_split_k = \"stream\"");
    else if (splitK)
      attrs.push_back("qs.gemm_split_k = " + std::to_string(splitK) + " : i64");
    if (reduce)
      attrs.push_back(std::string("qs.gemm_split_k_reduce = \"") + reduce +
                      "\"");
    os << "module";
    for (size_t i = 0; i < attrs.size(); ++i)
      os << (i ? ", " : " attributes {") << attrs[i];
    if (!attrs.empty())
      os << "}";
    os << " {\n";
    int functions = in.ConsumeIntegralInRange(1, 2);
    for (int f = 0; f < functions && in.remaining_bytes(); ++f)
      function(os, "f" + std::to_string(f));
    os << helpers.str() << "}\n";
    return os.str();
  }

private:
  FuzzedDataProvider in;
  std::ostringstream helpers;
  int nextValue = 0, nextHelper = 0;

  template <typename T, size_t N> T pick(const T (&options)[N]) {
    return options[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }

  std::string fresh() { return "%v" + std::to_string(nextValue++); }

  std::vector<int64_t> shape() {
    static const int64_t dims[] = {32, 64, 128, 256, 16, 32, 128, 48,
                                   96, 1,  2,   3,   130, 512, 0, 160};
    int rank = pick((const int[]){2, 2, 2, 3, 1, 4});
    std::vector<int64_t> s;
    for (int i = 0; i < rank; ++i)
      s.push_back(pick(dims));
    return s;
  }

  std::string bool_() { return in.ConsumeBool() ? "true" : "false"; }

  Quantizer quantizer() {
    static const char *families[] = {"fp8_delayed", "fp8_current", "mxfp8",
                                     "fp8_block", "nvfp4"};
    static const char *fp8Dtypes[] = {"f8E4M3FN", "f8E5M2", "f8E4M3FN",
                                      "f8E5M2", "f8E4M3", "bf16"};
    static const char *epsilons[] = {"0.000000e+00", "1.000000e-03",
                                     "1.000000e+00", "-1.000000e+00",
                                     "0x7F800000"};
    Quantizer q{pick(families), {}};
    std::vector<std::pair<std::string, int>> keys = {{"rowwise", 0},
                                                     {"columnwise", 0}};
    if (q.family != "nvfp4")
      keys.push_back({"fp8_dtype", 1});
    if (q.family == "fp8_current" || q.family == "fp8_block") {
      keys.push_back({"force_pow_2_scales", 0});
      keys.push_back({"amax_epsilon", 2});
    }
    if (q.family == "mxfp8" || q.family == "nvfp4") {
      keys.push_back({"with_2d_quantization", 0});
      keys.push_back({"optimize_for_gemm", 0});
    }
    if (q.family == "fp8_block")
      keys.push_back({"block_scaling_dim", 3});
    if (q.family == "nvfp4")
      for (const char *k :
           {"with_rht", "with_post_rht_amax", "stochastic_rounding",
            "row_scaled_nvfp4", "with_random_sign_mask", "nvfp4_use_4over6"})
        keys.push_back({k, 0});
    if (q.family == "nvfp4") {
      keys.push_back({"nvfp4_e4m3_max", 4});
      keys.push_back({"nvfp4_4over6_err_mode", 5});
    }
    // Rarely, a parameter of another family.
    if (in.ConsumeIntegralInRange(0, 15) == 0)
      keys.push_back({"block_scaling_dim", 3});
    for (auto &[key, kind] : keys) {
      if (!in.ConsumeBool())
        continue;
      switch (kind) {
      case 0:
        q.params[key] = bool_();
        break;
      case 1:
        q.params[key] = pick(fp8Dtypes);
        break;
      case 2:
        q.params[key] = pick(epsilons);
        break;
      case 4: // 4over6's E (448 and 256 valid)
        q.params[key] = std::to_string(pick((const int[]){256, 448, 256, 512}));
        break;
      case 5:
        q.params[key] = pick((const char *[]){"\"MSE\"", "\"MAE\"", "\"mse\""});
        break;
      default:
        q.params[key] = std::to_string(pick((const int[]){1, 2, 1, 2, 0, 3}));
      }
    }
    return q;
  }

  Value plain(std::vector<int64_t> s, std::string dtype) {
    return Value{fresh(), std::move(s), std::move(dtype), false, {}};
  }

  /// qs.amax_and_scale_update of a new history argument (lengths and
  /// attributes valid and not) with `scale` and, if not empty, `amax`.
  void scaleUpdate(std::ostringstream &body, std::vector<Value> &values,
                   std::vector<Value> &args, const std::string &scale,
                   const std::string &amax) {
    Value history =
        plain({pick((const int64_t[]){1, 16, 1024, 129, 2, 0})}, "f32");
    history.name = "%s" + std::to_string(args.size());
    args.push_back(history);
    Value rolled = plain(history.shape, "f32"), next = plain({1}, "f32");
    std::vector<std::string> attrs;
    if (const char *dtype = pick(
            (const char *[]){nullptr, nullptr, "f8E5M2", "f8E4M3FN", "bf16"}))
      attrs.push_back(std::string("fp8_dtype = ") + dtype);
    if (int64_t margin = pick((const int64_t[]){0, 0, 1, -3, 100, 101}))
      attrs.push_back("margin = " + std::to_string(margin) + " : i64");
    if (const char *algo = pick(
            (const char *[]){nullptr, nullptr, "max", "most_recent", "mean"}))
      attrs.push_back(std::string("amax_compute_algo = \"") + algo + "\"");
    body << "    " << rolled.name << ", " << next.name
         << " = qs.amax_and_scale_update " << history.name << ", " << scale;
    if (!amax.empty())
      body << " amax(" << amax << " : tensor<1xf32>)";
    for (size_t i = 0; i < attrs.size(); ++i)
      body << (i ? ", " : " {") << attrs[i];
    body << (attrs.empty() ? "" : "}") << " : " << history.type()
         << ", tensor<1xf32>\n";
    values.push_back(rolled);
    values.push_back(next);
  }

  /// An element-wise op on plain float value `x` (arith or math on the
  /// tensor, a linalg.map), or a row reduction (not element-wise: a
  /// diagnostic of qs-elementwise-to-gpu on the GPU pipelines).
  void elementwise(std::ostringstream &body, std::vector<Value> &values,
                   const Value *x) {
    if (!x)
      return;
    Value y = plain(x->shape, x->dtype);
    const std::string t = x->type();
    switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      body << "    " << y.name << " = "
           << pick((const char *[]){"arith.addf", "arith.mulf",
                                    "arith.maximumf"})
           << " " << x->name << ", " << x->name << " : " << t << "\n";
      break;
    case 1:
      body << "    " << y.name << " = "
           << pick((const char *[]){"math.tanh", "math.exp", "math.erf",
                                    "math.sin"})
           << " " << x->name << " : " << t << "\n";
      break;
    case 2:
      body << "    " << y.name << " = linalg.map { "
           << pick((const char *[]){"math.absf", "math.tanh", "arith.negf"})
           << " } ins(" << x->name << " : " << t << ") outs(" << x->name
           << " : " << t << ")\n";
      break;
    default: {
      if (x->shape.empty())
        return;
      std::vector<int64_t> rows(x->shape.begin(), x->shape.end() - 1);
      y = plain(rows, x->dtype);
      std::string zero = fresh();
      body << "    " << zero << " = arith.constant dense<0.0> : " << y.type()
           << "\n    " << y.name << " = linalg.reduce { arith.addf } ins("
           << x->name << " : " << t << ") outs(" << zero << " : " << y.type()
           << ") dimensions = [" << x->shape.size() - 1 << "]\n";
    }
    }
    values.push_back(y);
  }

  /// One op appended to `body`, reading and extending `values`.
  void op(std::ostringstream &body, std::vector<Value> &values,
          std::vector<Value> &args) {
    auto any = [&](auto predicate) -> Value * {
      std::vector<Value *> matches;
      for (Value &v : values)
        if (predicate(v))
          matches.push_back(&v);
      if (matches.empty())
        return nullptr;
      return matches[in.ConsumeIntegralInRange<size_t>(0, matches.size() - 1)];
    };
    switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
    case 1: { // quantize
      Value *x = any([](const Value &v) { return !v.quantized; });
      if (!x)
        return;
      Value q = *x;
      const std::string xName = x->name;
      q.name = fresh();
      q.quantized = true;
      q.quantizer = quantizer();
      if (q.quantizer.family == "fp8_delayed" && in.ConsumeIntegralInRange(0, 7)) {
        Value scale = plain({1}, "f32"), amax = plain({1}, "f32");
        scale.name = "%s" + std::to_string(args.size());
        args.push_back(scale);
        amax.name = "%s" + std::to_string(args.size());
        args.push_back(amax);
        Value updated = plain({1}, "f32");
        body << "    " << q.name << ", " << updated.name << " = qs.quantize "
             << x->name << " scale(" << scale.name << " : tensor<1xf32>) amax("
             << amax.name << " : tensor<1xf32>) : " << x->type() << " -> "
             << q.type() << ", tensor<1xf32>\n";
        values.push_back(updated);
        if (in.ConsumeIntegralInRange(0, 3) == 0)
          scaleUpdate(body, values, args, scale.name,
                      in.ConsumeBool() ? updated.name : "");
      } else if (auto sr = q.quantizer.params.find("stochastic_rounding");
                 sr != q.quantizer.params.end() && sr->second == "true" &&
                 in.ConsumeIntegralInRange(0, 7)) {
        // Stochastic rounding's rng state (rarely left out: a diagnostic).
        Value state = plain({2}, "i64");
        state.name = "%s" + std::to_string(args.size());
        args.push_back(state);
        body << "    " << q.name << " = qs.quantize " << x->name << " rng("
             << state.name << " : tensor<2xi64>) : " << x->type() << " -> "
             << q.type() << "\n";
      } else if ((q.quantizer.family == "fp8_current" ||
                  q.quantizer.family == "nvfp4") &&
                 in.ConsumeIntegralInRange(0, 3) == 0) {
        // Given global amaxes (TE's amax reduction): one, or two for NVFP4
        // with RHT (the other count: a diagnostic).
        Value amax = plain({in.ConsumeIntegralInRange<int64_t>(1, 2)}, "f32");
        amax.name = "%s" + std::to_string(args.size());
        args.push_back(amax);
        body << "    " << q.name << " = qs.quantize " << x->name << " amax("
             << amax.name << " : " << amax.type() << ") : " << x->type()
             << " -> " << q.type() << "\n";
      } else {
        body << "    " << q.name << " = qs.quantize " << x->name << " : "
             << x->type() << " -> " << q.type() << "\n";
      }
      values.push_back(q);
      // The quantize's global amaxes (a diagnostic where it has none); q
      // has x's name and shape, and x may dangle now (values grew).
      if (in.ConsumeIntegralInRange(0, 7) == 0) {
        Value input = q;
        input.quantized = false;
        input.name = xName;
        Value amax = plain({in.ConsumeIntegralInRange<int64_t>(1, 2)}, "f32");
        body << "    " << amax.name << " = qs.amax " << xName << " as "
             << q.type() << " : " << input.type() << " -> " << amax.type()
             << "\n";
        values.push_back(amax);
      }
      return;
    }
    case 2: { // dequantize, the bias gradient of a plain value, or an
              // element-wise op (or a reduction) on one
      if (in.ConsumeIntegralInRange(0, 4) == 0) {
        elementwise(body, values, any([](const Value &v) {
                      return !v.quantized &&
                             (v.dtype == "bf16" || v.dtype == "f16" ||
                              v.dtype == "f32");
                    }));
        return;
      }
      if (in.ConsumeIntegralInRange(0, 3) == 0) {
        Value *x = any([](const Value &v) { return !v.quantized; });
        if (!x)
          return;
        // 1-D of the last dimension (a 1-D input: a diagnostic).
        Value d = plain({x->shape.empty() ? 1 : x->shape.back()},
                        pick((const char *[]){"f32", "bf16", "f16"}));
        body << "    " << d.name << " = qs.bias_grad " << x->name << " : "
             << x->type() << " -> " << d.type() << "\n";
        values.push_back(d);
        return;
      }
      Value *q = any([](const Value &v) { return v.quantized; });
      if (!q)
        return;
      Value d = plain(q->shape, pick((const char *[]){"f32", "bf16", "f16"}));
      body << "    " << d.name << " = qs.dequantize " << q->name << " : "
           << q->type() << " -> " << d.type() << "\n";
      values.push_back(d);
      return;
    }
    case 3: { // update_usage
      Value *q = any([](const Value &v) { return v.quantized; });
      if (!q)
        return;
      Value u = *q;
      u.name = fresh();
      u.quantizer.params["rowwise"] = bool_();
      u.quantizer.params["columnwise"] = bool_();
      body << "    " << u.name << " = qs.update_usage " << q->name << " : "
           << q->type() << " -> " << u.type() << "\n";
      values.push_back(u);
      return;
    }
    case 4:
    case 5: { // gemm
      Value *a = any([](const Value &v) { return v.quantized; });
      Value *b = any([](const Value &v) { return v.quantized; });
      if (!a || !b)
        return;
      bool ta = in.ConsumeBool(), tb = in.ConsumeBool();
      auto rows = [](const Value &v) {
        int64_t m = 1;
        for (size_t i = 0; i + 1 < v.shape.size(); ++i)
          m *= v.shape[i];
        return m;
      };
      int64_t n = tb ? rows(*b) : b->shape.back();
      std::vector<int64_t> s;
      if (ta)
        s = {a->shape.back(), n};
      else {
        s.assign(a->shape.begin(), a->shape.end() - 1);
        s.push_back(n);
      }
      Value y = plain(s, pick((const char *[]){"bf16", "f32", "f16"}));
      body << "    " << y.name << " = qs.gemm " << a->name << ", " << b->name
           << (ta ? " transpose_a" : "") << (tb ? " transpose_b" : "")
           << (in.ConsumeIntegralInRange(0, 2) == 0 ? " fast_accumulate" : "");
      if (in.ConsumeIntegralInRange(0, 3) == 0) {
        Value *acc = any([&](const Value &v) {
          return !v.quantized && v.shape == y.shape && v.dtype == y.dtype;
        });
        if (acc)
          body << " accumulate(" << acc->name << " : " << acc->type() << ")";
      }
      // A kernel knob on the op itself (the storage passes carry it to
      // qs.gemm_buffers), valid or not.
      if (in.ConsumeIntegralInRange(0, 3) == 0) {
        static const char *knobs[] = {"qs.gemm_tile_n = 256 : i64",
                                      "qs.gemm_tile_n = 64 : i64",
                                      "qs.gemm_persistent = 5 : i64",
                                      "qs.gemm_persistent = 0 : i64",
                                      "qs.gemm_cluster = 2 : i64",
                                      "qs.gemm_cluster = 2 : i32",
                                      "qs.chip = \"sm_100a\"",
                                      "qs.gemm_schedule = \"pingpong\"",
                                      "qs.gemm_schedule = \"cooperative\"",
                                      "qs.gemm_schedule = \"split-k\"",
                                      "qs.gemm_epilogue = \"tma\"",
                                      "qs.gemm_epilogue = \"stmatrix\"",
                                      "qs.gemm_split_k = 2 : i64",
                                      "qs.gemm_split_k = 0 : i64",
                                      "qs.gemm_split_k = \"auto\"",
                                      "qs.gemm_split_k = \"stream\"",
                                      "qs.gemm_split_k_reduce = \"fused\""};
        body << " {" << pick(knobs) << "}";
      }
      body << " : " << a->type() << ", " << b->type() << " -> " << y.type()
           << "\n";
      values.push_back(y);
      return;
    }
    case 6: { // qs.empty, or a value through scf.if
      if (in.ConsumeBool()) {
        Value e = plain(shape(), "bf16");
        e.quantized = true;
        e.quantizer = quantizer();
        body << "    " << e.name << " = qs.empty : " << e.type() << "\n";
        values.push_back(e);
        return;
      }
      Value *a = any([](const Value &v) { return v.quantized; });
      if (!a)
        return;
      Value r = *a;
      r.name = fresh();
      std::string c = fresh();
      body << "    " << c << " = arith.constant " << bool_() << "\n"
           << "    " << r.name << " = scf.if " << c << " -> (" << a->type()
           << ") {\n      scf.yield " << a->name << " : " << a->type()
           << "\n    } else {\n      scf.yield " << a->name << " : "
           << a->type() << "\n    }\n";
      values.push_back(r);
      return;
    }
    default: { // through a private function
      Value *a = any([](const Value &v) { return v.quantized; });
      if (!a)
        return;
      std::string callee = "id" + std::to_string(nextHelper++);
      helpers << "  func.func private @" << callee << "(%a: " << a->type()
              << ") -> " << a->type() << " {\n    return %a : " << a->type()
              << "\n  }\n";
      Value r = *a;
      r.name = fresh();
      body << "    " << r.name << " = func.call @" << callee << "("
           << a->name << ") : (" << a->type() << ") -> " << a->type() << "\n";
      values.push_back(r);
      return;
    }
    }
  }

  void function(std::ostringstream &os, const std::string &name) {
    std::vector<Value> args, values;
    int numArgs = in.ConsumeIntegralInRange(1, 3);
    for (int i = 0; i < numArgs; ++i) {
      Value v = plain(shape(), pick((const char *[]){"bf16", "bf16", "f32",
                                                     "f16", "f64"}));
      if (in.ConsumeIntegralInRange(0, 3) == 0) {
        v.quantized = true;
        v.quantizer = quantizer();
      }
      v.name = "%a" + std::to_string(i);
      args.push_back(v);
      values.push_back(v);
    }
    std::ostringstream body;
    int numOps = in.ConsumeIntegralInRange(1, 8);
    for (int i = 0; i < numOps && in.remaining_bytes(); ++i)
      op(body, values, args);
    std::vector<Value> results;
    for (const Value &v : values)
      if (in.ConsumeBool())
        results.push_back(v);
    os << "  func.func @" << name << "(";
    for (size_t i = 0; i < args.size(); ++i)
      os << (i ? ", " : "") << args[i].name << ": " << args[i].type();
    os << ") -> (";
    for (size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : "") << results[i].type();
    os << ") {\n" << body.str() << "    return";
    for (size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : " ") << results[i].name;
    if (!results.empty()) {
      os << " :";
      for (size_t i = 0; i < results.size(); ++i)
        os << (i ? ", " : " ") << results[i].type();
    }
    os << "\n  }\n";
  }
};

} // namespace

std::string generateModule(const uint8_t *data, size_t size) {
  return Generator(data, size).module();
}

} // namespace qs_fuzz
