// Base64 of the cubins in a text dump: RFC 4648 vectors, every length of a last group, and the
// strict decoder refusing what a dump must not hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/base64.hpp"

namespace sgt {
namespace {

std::vector<unsigned char> bytes(const std::string& s) { return {s.begin(), s.end()}; }

TEST(Base64, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(base64_encode(bytes("")), "");
  EXPECT_EQ(base64_encode(bytes("f")), "Zg==");
  EXPECT_EQ(base64_encode(bytes("fo")), "Zm8=");
  EXPECT_EQ(base64_encode(bytes("foo")), "Zm9v");
  EXPECT_EQ(base64_encode(bytes("foob")), "Zm9vYg==");
  EXPECT_EQ(base64_encode(bytes("fooba")), "Zm9vYmE=");
  EXPECT_EQ(base64_encode(bytes("foobar")), "Zm9vYmFy");
  EXPECT_EQ(base64_encode({0xfb, 0xff, 0xbf}), "+/+/");  // the last two letters of the alphabet
}

TEST(Base64, DecodesTheRfc4648Vectors) {
  for (const std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    std::vector<unsigned char> out{1, 2, 3};  // replaced, not appended to
    ASSERT_TRUE(base64_decode(base64_encode(bytes(s)), out)) << s;
    EXPECT_EQ(out, bytes(s));
  }
}

// Lengths 0 to 7 cover an empty input and a last group of one, two and three bytes, each alone
// and after a whole group; every byte value appears.
TEST(Base64, RoundTripsEveryLengthOfTheLastGroup) {
  for (std::size_t n = 0; n <= 7; ++n) {
    for (int start = 0; start < 256; ++start) {
      std::vector<unsigned char> data;
      for (std::size_t i = 0; i < n; ++i)
        data.push_back(static_cast<unsigned char>(start + 37 * i));
      const std::string text = base64_encode(data);
      EXPECT_EQ(text.size(), (n + 2) / 3 * 4);
      std::vector<unsigned char> out;
      ASSERT_TRUE(base64_decode(text, out)) << text;
      EXPECT_EQ(out, data) << text;
    }
  }
}

TEST(Base64, RoundTripsACubinSizedBuffer) {
  std::vector<unsigned char> data(100003);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7919 >> 3);
  std::vector<unsigned char> out;
  ASSERT_TRUE(base64_decode(base64_encode(data), out));
  EXPECT_EQ(out, data);
}

TEST(Base64, RefusesWhatIsNotStrictBase64) {
  for (const std::string& text : std::vector<std::string>{
           "Z",         // not whole groups of four
           "Zg=",       // padding short of the group
           "Zm9vY",     // a group and a letter
           "@@@@",      // outside the alphabet
           "Zm9-",      // the URL-safe alphabet
           "Zm9_",      // ... both of its letters
           "Zm 9",      // whitespace inside
           "Zm9v\n",    // ... or after
           "Zg==Zm9v",  // padding before the last group
           "Z===",      // a group cannot hold fewer than 8 bits
           "====",      // ... or none
           "Zm=v",      // padding inside a group
           std::string("Zm9\0", 4),
       }) {
    std::vector<unsigned char> out;
    EXPECT_FALSE(base64_decode(text, out)) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace sgt
