// import_bench: how fast ptec reads and imports .pt2 archives, on synthetic
// archives written to a temporary folder. Not a test: it prints numbers.
//
//   import_bench [--nodes N] [--weights-mib M] [--repeats R] [--keep]
//
// Two archives, both in the PT2 layout of torch 2.9 (root folder,
// archive_format, models/model.json, raw weight payloads + PayloadConfig;
// every record STORED):
//   graph:   a chain of N aten.add.Tensor / aten.relu nodes on a 4x4 tensor,
//            with tensor_values and a stack trace for every node;
//   weights: M MiB of float32 parameters in 4 tensors, a 4-node graph.
// Measured side by side in one run, median of R repeats (interleaved, so a
// load spike on the machine hits every series alike):
//   (a) readPt2 of the graph archive: time and nodes/s;
//   (b) readPt2 + importPrograms (MLIR) of the graph archive: time and nodes/s;
//   (c) readPt2 of the weights archive against a plain read of the same
//       payload bytes from ordinary files (one file per payload, same sizes),
//       and readPt2 + importPrograms of it; ratios to the plain read;
//   (d) the shape rules (verifySemantics) over the imported graph module:
//       what import spends on them, and what each verification costs when
//       they run after every pass (--exir-verify-each); ratio to (b).
// --model FILE.pt2 adds (b) and (d) for that archive (a zoo model).
// All files were just written, so both sides read from the page cache; both
// sides' times include freeing what they read.
#include "compiler/Import.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "serde/pt2/Pt2Reader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace pt2 = ptec::pt2;

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "import_bench: error: %s\n", message.c_str());
  std::exit(1);
}

// ------------------------------------------------------------ archive writing

std::string ints(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", {\"as_int\": " : "{\"as_int\": ") + std::to_string(v[i]) + "}";
  return s + "]";
}

// TensorMeta JSON of a contiguous float32 tensor (pt2-format.md section 4).
std::string tensorMeta(const std::vector<int64_t> &sizes, bool requiresGrad) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * sizes[i];
  return "{\"dtype\": 7, \"sizes\": " + ints(sizes) + ", \"requires_grad\": " +
         (requiresGrad ? "true" : "false") +
         ", \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": " + ints(strides) +
         ", \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}";
}

std::string tensorArg(const std::string &name) {
  return "{\"as_tensor\": {\"name\": \"" + name + "\"}}";
}

struct Node {
  std::string target;
  std::vector<std::pair<std::string, std::string>> inputs;  // schema name, value name
  std::string output;
};

// torch names a parameter's placeholder p_<fqn with dots as underscores>.
std::string placeholder(std::string fqn) {
  std::replace(fqn.begin(), fqn.end(), '.', '_');
  return "p_" + fqn;
}

struct Param {
  std::string fqn;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> bytes;
};

// The whole model.json: placeholders for params then user input x.
std::string modelJson(const std::vector<Param> &params, const std::vector<int64_t> &xSizes,
                      const std::vector<Node> &nodes) {
  std::string inputs, specs, values, body;
  for (const Param &p : params) {
    std::string ph = placeholder(p.fqn);
    inputs += tensorArg(ph) + ", ";
    specs += "{\"parameter\": {\"arg\": {\"name\": \"" + ph + "\"}, \"parameter_name\": \"" +
             p.fqn + "\"}}, ";
    values += "\"" + ph + "\": " + tensorMeta(p.sizes, true) + ", ";
  }
  inputs += tensorArg("x");
  specs += "{\"user_input\": {\"arg\": " + tensorArg("x") + "}}";
  values += "\"x\": " + tensorMeta(xSizes, false);
  body.reserve(nodes.size() * 700);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &n = nodes[i];
    body += i ? ", " : "";
    body += "{\"target\": \"" + n.target + "\", \"inputs\": [";
    for (size_t k = 0; k < n.inputs.size(); ++k)
      body += (k ? ", {\"name\": \"" : "{\"name\": \"") + n.inputs[k].first +
              "\", \"arg\": " + tensorArg(n.inputs[k].second) + ", \"kind\": 1}";
    body += "], \"outputs\": [" + tensorArg(n.output) +
            "], \"metadata\": {\"stack_trace\": \"  File \\\"synthetic.py\\\", line " +
            std::to_string(i + 10) + ", in forward\\n    x = op(x)\\n\", \"nn_module_stack\": "
            "\"L__self___blocks,blocks,torch.nn.modules.container.Sequential\"}, "
            "\"is_hop_single_tensor_return\": null}";
    values += ", \"" + n.output + "\": " + tensorMeta(xSizes, false);
  }
  const std::string out = nodes.empty() ? "x" : nodes.back().output;
  return "{\"graph_module\": {\"graph\": {\"inputs\": [" + inputs + "], \"outputs\": [" +
         tensorArg(out) + "], \"nodes\": [" + body + "], \"tensor_values\": {" + values +
         "}, \"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": "
         "false, \"custom_obj_values\": {}, \"sym_float_values\": {}}, \"signature\": "
         "{\"input_specs\": [" + specs + "], \"output_specs\": [{\"user_output\": {\"arg\": " +
         tensorArg(out) + "}}]}, \"module_call_graph\": [{\"fqn\": \"\", \"signature\": "
         "{\"inputs\": [], \"outputs\": [], \"in_spec\": \"\", \"out_spec\": \"\", "
         "\"forward_arg_names\": [\"x\"]}}], \"metadata\": {}, \"treespec_namedtuple_fields\": "
         "{}}, \"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, \"schema_version\": "
         "{\"major\": 8, \"minor\": 12}, \"verifiers\": [\"ATEN\"], \"torch_version\": "
         "\"2.9.0\"}";
}

std::string payloadConfig(const std::vector<Param> &params) {
  std::string s = "{\"config\": {";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ", \"" : "\"") + params[i].fqn + "\": {\"path_name\": \"weight_" +
         std::to_string(i) + "\", \"is_param\": true, \"use_pickle\": false, "
         "\"tensor_meta\": " + tensorMeta(params[i].sizes, true) + "}";
  return s + "}}";
}

// Writes a PT2 archive with root folder "archive/" (what torch.export.save
// names it when saving to a buffer), records in torch 2.9's order, STORED.
void writeArchive(const fs::path &path, const std::vector<Param> &params,
                  const std::string &model) {
  int error = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!z)
    die("cannot create " + path.string());
  std::vector<std::string> texts;  // libzip reads the buffers at zip_close
  texts.reserve(params.size() + 8);
  auto add = [&](const std::string &name, const void *data, size_t size) {
    zip_source_t *src = zip_source_buffer(z, data, size, 0);
    zip_int64_t index = src ? zip_file_add(z, ("archive/" + name).c_str(), src, ZIP_FL_ENC_UTF_8)
                            : -1;
    if (index < 0 || zip_set_file_compression(z, static_cast<zip_uint64_t>(index),
                                              ZIP_CM_STORE, 0) != 0)
      die("cannot add " + name + " to " + path.string() + ": " + zip_strerror(z));
  };
  auto addText = [&](const std::string &name, std::string text) {
    texts.push_back(std::move(text));
    add(name, texts.back().data(), texts.back().size());
  };
  for (size_t i = 0; i < params.size(); ++i)
    add("data/weights/weight_" + std::to_string(i), params[i].bytes.data(),
        params[i].bytes.size());
  addText("data/weights/model_weights_config.json", payloadConfig(params));
  addText("data/constants/model_constants_config.json", "{\"config\": {}}");
  addText("models/model.json", model);
  addText("archive_format", "pt2");
  addText("archive_version", "0");
  addText(".data/version", "6\n");
  addText("byteorder", "little");
  addText(".data/serialization_id", std::string(40, '7'));
  if (zip_close(z) != 0)
    die("cannot write " + path.string() + ": " + zip_strerror(z));
}

// x -> add(x, x) -> relu -> add(., x) -> relu ...: every node one 4x4 value.
std::vector<Node> chain(int count) {
  std::vector<Node> nodes;
  nodes.reserve(static_cast<size_t>(count));
  std::string prev = "x";
  for (int i = 0; i < count; ++i) {
    Node n;
    if (i % 2 == 0) {
      n.target = "torch.ops.aten.add.Tensor";
      n.inputs = {{"self", prev}, {"other", "x"}};
      n.output = "add_" + std::to_string(i);
    } else {
      n.target = "torch.ops.aten.relu.default";
      n.inputs = {{"self", prev}};
      n.output = "relu_" + std::to_string(i);
    }
    prev = n.output;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// ----------------------------------------------------------------- measuring

// Wall and process CPU seconds of one call. On a machine shared with other
// jobs the CPU time is the steadier of the two.
struct Time {
  double wall = 0, cpu = 0;
};

double cpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

Time measure(const std::function<void()> &f) {
  double c0 = cpuNow();
  auto t0 = std::chrono::steady_clock::now();
  f();
  Time t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.cpu = cpuNow() - c0;
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

pt2::ExportedProgram read(const fs::path &path) {
  pt2::ReadError err;
  std::optional<pt2::ExportedProgram> ep = pt2::readPt2(path.string(), &err);
  if (!ep)
    die(err.message);
  return std::move(*ep);
}

// readPt2 + importPrograms in a fresh context, as aot-compile does it.
size_t readAndImport(const fs::path &path) {
  mlir::DialectRegistry registry;
  ptec::registerImportDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  std::vector<ptec::MethodSource> sources;
  sources.push_back({read(path), "forward"});
  mlir::OwningOpRef<mlir::ModuleOp> module = ptec::importPrograms(ctx, sources);
  if (!module)
    die("import of " + path.string() + " failed:\n" + errors);
  size_t ops = 0;
  module->walk([&](mlir::Operation *op) { ops += op->getName().getStringRef() == "exir.aten"; });
  return ops;
}

// An imported program and the context it lives in.
struct Imported {
  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  size_t ops = 0;
};

Imported importOnce(const fs::path &path) {
  mlir::DialectRegistry registry;
  ptec::registerImportDialects(registry);
  Imported im;
  im.ctx = std::make_unique<mlir::MLIRContext>(registry,
                                               mlir::MLIRContext::Threading::DISABLED);
  im.ctx->loadAllAvailableDialects();
  std::vector<ptec::MethodSource> sources;
  sources.push_back({read(path), "forward"});
  im.module = ptec::importPrograms(*im.ctx, sources);
  if (!im.module)
    die("import of " + path.string() + " failed");
  im.module->walk([&](mlir::Operation *op) {
    im.ops += op->getName().getStringRef() == "exir.aten";
  });
  return im;
}

// The shape rules over every exir.aten of an imported module.
void shapeRules(const Imported &im) {
  if (mlir::failed(ptec::exir::verifySemanticsIn(*im.module)))
    die("the shape rules refused an imported program");
}

// The baseline: the same bytes read from plain files into memory.
size_t plainRead(const std::vector<fs::path> &files) {
  size_t total = 0;
  for (const fs::path &f : files) {
    std::FILE *in = std::fopen(f.c_str(), "rb");
    if (!in)
      die("cannot open " + f.string());
    std::vector<uint8_t> bytes(fs::file_size(f));
    total += std::fread(bytes.data(), 1, bytes.size(), in);
    std::fclose(in);
  }
  return total;
}

struct Options {
  int nodes = 100000;
  int weightsMiB = 64;
  int repeats = 5;
  bool keep = false;
  std::string model;  // --model: also measure this archive
};

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> int {
      if (i + 1 >= argc)
        die(a + " needs a value");
      int v = std::atoi(argv[++i]);
      if (v <= 0)
        die(a + " needs a positive number");
      return v;
    };
    if (a == "--nodes")
      o.nodes = value();
    else if (a == "--weights-mib")
      o.weightsMiB = value();
    else if (a == "--repeats")
      o.repeats = value();
    else if (a == "--keep")
      o.keep = true;
    else if (a == "--model" && i + 1 < argc)
      o.model = argv[++i];
    else if (a == "-h" || a == "--help") {
      std::printf("usage: import_bench [--nodes N=100000] [--weights-mib M=64] "
                  "[--repeats R=5] [--keep] [--model FILE.pt2]\n"
                  "  --keep   leave the generated archives in the temporary folder\n"
                  "  --model  also time import and the shape rules on FILE.pt2\n");
      std::exit(0);
    } else
      die("unknown argument '" + a + "' (see --help)");
  }
  return o;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  std::error_code ec;
  fs::path dir = fs::temp_directory_path() /
                 ("ptec_import_bench_" + std::to_string(
                     std::chrono::steady_clock::now().time_since_epoch().count()));
  if (!fs::create_directories(dir, ec))
    die("cannot create a temporary folder: " + ec.message());

  // Graph archive.
  const std::vector<int64_t> small = {4, 4};
  fs::path graphPt2 = dir / "graph.pt2";
  double genGraph =
      measure([&] { writeArchive(graphPt2, {}, modelJson({}, small, chain(o.nodes))); }).wall;

  // Weights archive: 4 float32 vectors, x + w0 + w1 + w2 + w3.
  const int kTensors = 4;
  const int64_t numel = int64_t{o.weightsMiB} * (1 << 20) / 4 / kTensors;
  std::vector<Param> params(kTensors);
  std::vector<Node> adds;
  std::vector<fs::path> plainFiles;
  std::string prev = "x";
  for (int i = 0; i < kTensors; ++i) {
    Param &p = params[static_cast<size_t>(i)];
    p.fqn = "layer" + std::to_string(i) + ".weight";
    p.sizes = {numel};
    p.bytes.resize(static_cast<size_t>(numel) * 4);
    for (size_t b = 0; b < p.bytes.size(); ++b)
      p.bytes[b] = static_cast<uint8_t>(b * 131 + static_cast<size_t>(i));
    adds.push_back({"torch.ops.aten.add.Tensor", {{"self", prev}, {"other", placeholder(p.fqn)}},
                    "add_" + std::to_string(i)});
    prev = adds.back().output;
    plainFiles.push_back(dir / ("weight_" + std::to_string(i) + ".bin"));
    std::ofstream(plainFiles.back(), std::ios::binary)
        .write(reinterpret_cast<const char *>(p.bytes.data()),
               static_cast<std::streamsize>(p.bytes.size()));
  }
  fs::path weightsPt2 = dir / "weights.pt2";
  writeArchive(weightsPt2, params, modelJson(params, {numel}, adds));
  params.clear();
  const double weightBytes = double(numel) * 4 * kTensors;

  std::printf("import_bench: %d nodes (graph.pt2 %.1f MiB, written in %.2f s), "
              "%d MiB weights in %d tensors (weights.pt2 %.1f MiB)\n",
              o.nodes, fs::file_size(graphPt2) / 1048576.0, genGraph, o.weightsMiB, kTensors,
              fs::file_size(weightsPt2) / 1048576.0);

  // Warm-up: page cache, allocator, schema registry; also checks the result.
  size_t graphNodes = read(graphPt2).graph.nodes.size();
  size_t imported = readAndImport(graphPt2);
  if (graphNodes != size_t(o.nodes) || imported != size_t(o.nodes))
    die("expected " + std::to_string(o.nodes) + " nodes, read " + std::to_string(graphNodes) +
        ", imported " + std::to_string(imported));
  if (plainRead(plainFiles) != size_t(weightBytes) || read(weightsPt2).weights.size() != kTensors)
    die("weights archive did not round-trip");
  readAndImport(weightsPt2);

  struct Series {
    const char *label;
    std::function<void()> run;
    std::vector<double> wall, cpu;
    double medWall() const { return median(wall); }
    double medCpu() const { return median(cpu); }
  };
  Series graphRead{"(a) readPt2", [&] { read(graphPt2); }, {}, {}};
  Series graphImport{"(b) readPt2 + import to exir", [&] { readAndImport(graphPt2); }, {}, {}};
  Series plain{"plain read of the same bytes (baseline)", [&] { plainRead(plainFiles); }, {}, {}};
  Series weights{"(c) readPt2 (weight loading)", [&] { read(weightsPt2); }, {}, {}};
  Series weightsImport{"    readPt2 + import to exir", [&] { readAndImport(weightsPt2); }, {}, {}};
  Imported graphModule = importOnce(graphPt2);
  Series graphRules{"(d) shape rules over the imported graph", [&] { shapeRules(graphModule); },
                    {}, {}};
  std::optional<Imported> model;
  if (!o.model.empty())
    model = importOnce(o.model);
  Series modelImport{"readPt2 + import to exir", [&] {
                       if (model)
                         readAndImport(o.model);
                     }, {}, {}};
  Series modelRules{"shape rules over the imported model", [&] {
                      if (model)
                        shapeRules(*model);
                    }, {}, {}};
  Series *all[] = {&graphRead, &graphImport, &graphRules, &plain, &weights, &weightsImport,
                   &modelImport, &modelRules};
  for (int r = 0; r < o.repeats; ++r)
    for (Series *s : all) {
      Time t = measure(s->run);
      s->wall.push_back(t.wall);
      s->cpu.push_back(t.cpu);
    }

  const double n = o.nodes, mib = weightBytes / 1048576.0;
  std::printf("\n%-40s %9s %9s %13s %13s\n", "graph archive", "wall (s)", "cpu (s)",
              "nodes/s wall", "nodes/s cpu");
  for (const Series *s : {&graphRead, &graphImport})
    std::printf("%-40s %9.3f %9.3f %13.0f %13.0f\n", s->label, s->medWall(), s->medCpu(),
                n / s->medWall(), n / s->medCpu());
  const double importWall = graphImport.medWall() - graphRead.medWall();
  const double importCpu = graphImport.medCpu() - graphRead.medCpu();
  std::printf("%-40s %9.3f %9.3f %13.0f %13.0f\n", "    import alone (b - a)", importWall,
              importCpu, n / importWall, n / importCpu);
  std::printf("%-40s %9.3f %9.3f %13.0f %13.0f   %.1f%% of (b) cpu\n", graphRules.label,
              graphRules.medWall(), graphRules.medCpu(), n / graphRules.medWall(),
              n / graphRules.medCpu(), 100 * graphRules.medCpu() / graphImport.medCpu());
  if (model) {
    std::printf("\n%s: %zu exir.aten ops\n", o.model.c_str(), model->ops);
    std::printf("%-40s %9.5f %9.5f\n", modelImport.label, modelImport.medWall(),
                modelImport.medCpu());
    std::printf("%-40s %9.5f %9.5f   %.1f%% of import cpu\n", modelRules.label,
                modelRules.medWall(), modelRules.medCpu(),
                100 * modelRules.medCpu() / modelImport.medCpu());
  }

  std::printf("\n%-40s %9s %9s %9s %11s %11s\n", "weights archive", "wall (s)", "cpu (s)",
              "MiB/s", "x plain", "x plain");
  std::printf("%-40s %9s %9s %9s %11s %11s\n", "", "", "", "wall", "wall", "cpu");
  for (const Series *s : {&plain, &weights, &weightsImport})
    std::printf("%-40s %9.4f %9.4f %9.0f %11.2f %11.2f\n", s->label, s->medWall(), s->medCpu(),
                mib / s->medWall(), s->medWall() / plain.medWall(),
                s->medCpu() / plain.medCpu());
  std::printf("\nmedian of %d interleaved repeats; x plain = time / time of the plain read, "
              "same run\n", o.repeats);

  if (o.keep)
    std::printf("\narchives kept in %s\n", dir.c_str());
  else
    fs::remove_all(dir, ec);
  return 0;
}
