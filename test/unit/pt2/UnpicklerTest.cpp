// The restricted unpickler on its own: what it accepts and what it refuses.
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/Unpickler.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

using namespace ptec::pt2;
using namespace ptec::pt2::pickle;
using namespace std::string_literals;

namespace {
std::string errorOf(const std::string &bytes, Limits limits = Limits()) {
  Unpickler u(limits);
  try {
    u.load(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  } catch (const Pt2Error &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("unpickler builds the state-dict object tree", "[pt2][pickle]") {
  std::string p = ptec::pt2::test::stateDictPickle();
  Unpickler u;
  const Object *top = u.load(reinterpret_cast<const uint8_t *>(p.data()), p.size());
  REQUIRE(top->kind == Object::Kind::Dict);
  REQUIRE(top->items.size() == 2);
  CHECK(top->items[0]->s == "w");
  const Object *t = top->items[1];
  REQUIRE(t->kind == Object::Kind::Tensor);
  CHECK(t->dtype == DType::Float);
  CHECK(t->sizes == std::vector<int64_t>{2, 3});
  CHECK(t->strides == std::vector<int64_t>{3, 1});
  CHECK(t->storage->key == "0");
  CHECK(t->storage->location == "cpu");
  CHECK(t->storage->numel == 6);
}

TEST_CASE("unpickler reads primitive values", "[pt2][pickle]") {
  // (True, None, -2, 300, 70000, LONG1 -129, 1.5, "hé", b"x", [1], {})
  std::string p = "\x80\x02(\x88NJ\xfe\xff\xff\xffM,\x01J\x70\x11\x01\x00\x8a\x02\x7f\xff"s +
                  "G\x3f\xf8\x00\x00\x00\x00\x00\x00"s + "X\x03\x00\x00\x00h\xc3\xa9"s + "C\x01x"s +
                  "]K\x01" "a}t."s;
  Unpickler u;
  const Object *t = u.load(reinterpret_cast<const uint8_t *>(p.data()), p.size());
  REQUIRE(t->kind == Object::Kind::Tuple);
  REQUIRE(t->items.size() == 11);
  CHECK(t->items[0]->b);
  CHECK(t->items[1]->kind == Object::Kind::None);
  CHECK(t->items[2]->i == -2);
  CHECK(t->items[3]->i == 300);
  CHECK(t->items[4]->i == 70000);
  CHECK(t->items[5]->i == -129);
  CHECK(t->items[6]->f == 1.5);
  CHECK(t->items[7]->s == "h\xc3\xa9");
  CHECK(t->items[8]->kind == Object::Kind::Bytes);
  CHECK(t->items[9]->items.size() == 1);
  CHECK(t->items[10]->kind == Object::Kind::Dict);
}

TEST_CASE("unpickler refuses by name and stays bounded", "[pt2][pickle]") {
  CHECK(errorOf("\x80\x02" "cos\nsystem\n."s) ==
        "refusing pickle global 'os.system'; only plain tensors in a (ordered) dict can be loaded");
  CHECK(errorOf("\x80\x02" "c__builtin__\nexec\n."s).find("'__builtin__.exec'") != std::string::npos);
  CHECK(errorOf("\x80\x02" "ctorch\nFloatStorage\n)R."s).find("refusing to call pickle global 'torch.FloatStorage'") !=
        std::string::npos);
  CHECK(errorOf("\x80\x02(cos\nsystem\ni."s).find("'os.system'") != std::string::npos);
  CHECK(errorOf("\x80\x02(io\nx\n."s) == "refusing pickle opcode 'INST' at offset 3");
  CHECK(errorOf("\x80\x02" "N\x81."s) == "refusing pickle opcode 'NEWOBJ' at offset 3");
  CHECK(errorOf("\x80\x02" "Ib."s) == "refusing pickle opcode 'INT' at offset 2");
  CHECK(errorOf("\x80\x02\xff."s) == "unknown pickle opcode 0xff at offset 2");
  CHECK(errorOf("\x80\x06."s) == "pickle protocol 6 is unsupported");
  CHECK(errorOf("\x80\x02N"s) == "pickle ends without STOP");
  CHECK(errorOf("\x80\x02."s) == "pickle STOP with 0 values on the stack");
  CHECK(errorOf("\x80\x02s."s) == "pickle stack underflow at SETITEM");
  CHECK(errorOf("\x80\x02X\xff\xff\xff\x7f"s).find("pickle is truncated") == 0);
  CHECK(errorOf("\x80\x02\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01."s) ==
        "pickle integer of 9 bytes does not fit in 64 bits");
  CHECK(errorOf("\x80\x02h\x07."s) == "pickle memo index 7 was never set");
  CHECK(errorOf("\x80\x02]Nq\x00q\x01q\x02."s, Limits{100, 2, 10}) == "pickle memo exceeds 2 entries");
  CHECK(errorOf("\x80\x02NNNN."s, Limits{3, 10, 10}) == "pickle stack exceeds 3 items");
  CHECK(errorOf("\x80\x02)\x85\x85\x85\x85."s, Limits{100, 10, 3}) == "pickle nesting deeper than 3 levels");
  // A list that contains itself: no recursion, no leak, just an object graph.
  CHECK(errorOf("\x80\x02]q\x00h\x00" "a."s) == "");
  // Persistent ids must be storages of known typed-storage classes.
  CHECK(errorOf("\x80\x02(X\x07\x00\x00\x00storageNX\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpuK\x01tQ."s) ==
        "pickle persistent id names a storage type that is not a typed torch storage");
  CHECK(errorOf("\x80\x02K\x01Q."s) ==
        "pickle persistent id is not a ('storage', type, key, location, numel) tuple");
}
