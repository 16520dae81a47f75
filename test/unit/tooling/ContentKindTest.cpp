// serde/io/ContentKind.h: every kind from its signature, whatever the name.
#include "serde/io/ContentKind.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace ptec::io;
using namespace std::string_literals;

namespace {

/// `id` at offset 4 after a root offset, as a FlatBuffers file starts.
std::string flatbuffer(const char *id) { return "\x1c\0\0\0"s + id + std::string(24, '\0'); }

} // namespace

TEST_CASE("sniffContent: the signature of every kind", "[content]") {
  CHECK(sniffContent("") == ContentKind::Empty);
  CHECK(sniffContent("PK\x03\x04\0\0\x08\x08"s) == ContentKind::Pt2);
  CHECK(sniffContent("PK\x03\x04"s, "m/models/model.json m/archive_format m/data.pkl") ==
        ContentKind::Pt2);
  CHECK(sniffContent("PK\x03\x04"s, "ck/data.pkl ck/byteorder") == ContentKind::TorchSave);
  // torch 2.1's .pt2: the graph as serialized_exported_program.json, the
  // state dict a torch.save archive inside.
  CHECK(sniffContent("PK\x03\x04"s, "serialized_exported_program.json archive/data.pkl") ==
        ContentKind::Pt2);
  CHECK(sniffContent(flatbuffer("ET12")) == ContentKind::Pte);
  CHECK(sniffContent(flatbuffer("ET11")) == ContentKind::Pte); // another version: still a .pte
  CHECK(sniffContent(flatbuffer("FT01")) == ContentKind::Ptd);
  CHECK(sniffContent(flatbuffer("BP08")) == ContentKind::BundledPte);
  CHECK(sniffContent("\x93NUMPY\x01\0v\0{'descr': '<f4'"s) == ContentKind::Npy);
  CHECK(sniffContent("ML\xEFR\0..."s) == ContentKind::MlirBytecode);
  CHECK(sniffContent(std::string(64, '\0')) == ContentKind::Binary);
  CHECK(sniffContent(flatbuffer("ETxx")) == ContentKind::Binary); // not digits
}

TEST_CASE("sniffContent: MLIR text and other text", "[content]") {
  CHECK(sniffContent("module {\n}\n") == ContentKind::MlirText);
  CHECK(sniffContent("module attributes {exir.phase = \"import\"} {") == ContentKind::MlirText);
  CHECK(sniffContent("// RUN: ptec-opt %s\n\n// comment\nmodule @m {") == ContentKind::MlirText);
  CHECK(sniffContent("#map = affine_map<(d0) -> (d0)>\n") == ContentKind::MlirText);
  CHECK(sniffContent("!t = tensor<2xf32>\n") == ContentKind::MlirText);
  CHECK(sniffContent("\"builtin.module\"() ({\n}) : () -> ()") == ContentKind::MlirText);
  CHECK(sniffContent("func.func @f() {\n  return\n}") == ContentKind::MlirText);
  CHECK(sniffContent("%0 = exir.weight ...") == ContentKind::MlirText);
  CHECK(sniffContent("{-#\n  dialect_resources: {}\n#-}") == ContentKind::MlirText);
  CHECK(sniffContent("{\"schema_version\": 8}") == ContentKind::Text);
  CHECK(sniffContent("hello world\n") == ContentKind::Text);
  CHECK(sniffContent("modules are nice") == ContentKind::Text);
  CHECK(sniffContent("   \n\n") == ContentKind::Text);
}

TEST_CASE("wrongContentMessage names the kind and the tool that takes it", "[content]") {
  CHECK(wrongContentMessage("m.pt2", ContentKind::Pt2, "an ExecuTorch program (.pte)") ==
        "m.pt2 is a PyTorch exported program (.pt2, written by torch.export.save), not an "
        "ExecuTorch program (.pte); compile it with aot-compile: aot-compile m.pt2 -o model.pte");
  CHECK(wrongContentMessage("m.pte", ContentKind::Pte, "MLIR") ==
        "m.pte is an ExecuTorch program (.pte), not MLIR; run it with pte-run m.pte, look "
        "inside with pte-inspect m.pte");
  CHECK(wrongContentMessage("w.ptd", ContentKind::Ptd, "x").find("pte-run model.pte --data w.ptd") !=
        std::string::npos);
  CHECK(wrongContentMessage("x.bin", ContentKind::Binary, "x") ==
        "x.bin is binary data of no kind ptec knows, not x");
  for (ContentKind k : {ContentKind::Pt2, ContentKind::Pte, ContentKind::Ptd, ContentKind::Npy,
                        ContentKind::MlirText, ContentKind::MlirBytecode, ContentKind::TorchSave,
                        ContentKind::BundledPte})
    CHECK_FALSE(contentUse(k, "f").empty());
}

TEST_CASE("sniffFile reads the head and a zip's tail", "[content]") {
  auto dir = std::filesystem::temp_directory_path() / "ptec_content_kind_test";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string &name, const std::string &bytes) {
    std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  };
  ContentKind kind = ContentKind::Binary;
  std::string err;
  // A torch.save archive whose data.pkl is named only far from the start.
  std::string zip = "PK\x03\x04"s + std::string(100000, 'w') + "ck/data.pkl";
  REQUIRE(sniffFile(write("ck.pt2", zip), &kind, &err));
  CHECK(kind == ContentKind::TorchSave);
  REQUIRE(sniffFile(write("m.pte", flatbuffer("ET12")), &kind, &err));
  CHECK(kind == ContentKind::Pte);
  REQUIRE(sniffFile(write("empty.mlir", ""), &kind, &err));
  CHECK(kind == ContentKind::Empty);
  CHECK_FALSE(sniffFile((dir / "missing").string(), &kind, &err));
  CHECK(err.find("cannot open") != std::string::npos);
  CHECK_FALSE(sniffFile(dir.string(), &kind, &err));
  CHECK(err.find("directory") != std::string::npos);
  std::filesystem::remove_all(dir);
}
