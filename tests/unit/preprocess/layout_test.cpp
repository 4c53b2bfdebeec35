// Tests vireo::Layout: parsing of the letter and bracket forms, to_string, indices, the N/C/H/W
// helpers and the errors on malformed strings.
#include "vireo/layout.hpp"

#include <gtest/gtest.h>

#include "vireo/exception.hpp"

namespace vireo {
namespace {

TEST(Layout, LetterFormIndicesAndHelpers) {
    Layout l("NCHW");
    EXPECT_TRUE(l.is_static());
    EXPECT_EQ(l.rank(), 4u);
    EXPECT_EQ(l.get_index("N"), 0);
    EXPECT_EQ(l.get_index("C"), 1);
    EXPECT_EQ(l.get_index("H"), 2);
    EXPECT_EQ(l.get_index("W"), 3);
    EXPECT_TRUE(layout::has_batch(l));
    EXPECT_EQ(layout::batch_idx(l), 0);
    EXPECT_EQ(layout::channels_idx(l), 1);
    EXPECT_EQ(layout::height_idx(l), 2);
    EXPECT_EQ(layout::width_idx(l), 3);
    EXPECT_FALSE(layout::has_depth(l));
    EXPECT_THROW(layout::depth_idx(l), NotFound);

    Layout nhwc("nhwc");  // case-insensitive
    EXPECT_EQ(nhwc.to_string(), "NHWC");
    EXPECT_EQ(layout::channels_idx(nhwc), 3);
    EXPECT_TRUE(nhwc.has_dim("c"));
    EXPECT_EQ(nhwc, Layout("NHWC"));
    EXPECT_NE(nhwc, l);
}

TEST(Layout, UnnamedDimensions) {
    Layout l("?C?\?");
    EXPECT_EQ(l.rank(), 4u);
    EXPECT_EQ(l.get_index("C"), 1);
    EXPECT_FALSE(l.has_dim("?"));
    EXPECT_FALSE(layout::has_batch(l));
    EXPECT_EQ(l.to_string(), "?C?\?");
    EXPECT_EQ(l.names_for_rank(4), (std::vector<std::string>{"?", "C", "?", "?"}));
}

TEST(Layout, EllipsisCountsFromTheEnd) {
    Layout l("N...C");
    EXPECT_FALSE(l.is_static());
    EXPECT_FALSE(l.rank().has_value());
    EXPECT_EQ(l.get_index("N"), 0);
    EXPECT_EQ(l.get_index("C"), -1);
    EXPECT_EQ(l.get_index("C", 4), 3u);
    EXPECT_EQ(l.get_index("C", 2), 1u);
    EXPECT_TRUE(l.fits_rank(2));
    EXPECT_FALSE(l.fits_rank(1));
    EXPECT_THROW(l.get_index("C", 1), InvalidArgument);
    EXPECT_EQ(l.names_for_rank(4), (std::vector<std::string>{"N", "?", "?", "C"}));
    EXPECT_EQ(l.to_string(), "N...C");

    EXPECT_EQ(Layout("N...").get_index("N", 5), 0u);
    EXPECT_EQ(Layout("...HW").get_index("H"), -2);
}

TEST(Layout, EmptyAndScalar) {
    EXPECT_TRUE(Layout().empty());
    EXPECT_TRUE(Layout("").empty());
    EXPECT_TRUE(Layout("...").empty());
    EXPECT_EQ(Layout(), Layout("..."));
    EXPECT_EQ(Layout().to_string(), "");
    EXPECT_TRUE(Layout().fits_rank(0));
    EXPECT_TRUE(Layout().fits_rank(7));

    Layout s = Layout::scalar();
    EXPECT_FALSE(s.empty());
    EXPECT_EQ(s.rank(), 0u);
    EXPECT_EQ(s.to_string(), "[]");
    EXPECT_EQ(Layout("[]"), s);
    EXPECT_FALSE(s.fits_rank(1));
}

TEST(Layout, BracketForm) {
    Layout l("[N,C,H,W]");
    EXPECT_EQ(l, Layout("NCHW"));
    EXPECT_EQ(l.to_string(), "NCHW");  // single letters print in the short form

    Layout named("[batch, ?, ..., seq_len]");
    EXPECT_EQ(named.get_index("batch"), 0);
    EXPECT_EQ(named.get_index("SEQ_LEN"), -1);
    EXPECT_EQ(named.get_index("seq_len", 5), 4u);
    EXPECT_EQ(named.to_string(), "[BATCH,?,...,SEQ_LEN]");
    EXPECT_EQ(Layout(named.to_string()), named);  // round trip
}

TEST(Layout, RoundTripsThroughToString) {
    for (const char* text :
         {"NCHW", "NHWC", "N...", "...C", "?C?\?", "NC", "NCDHW", "[N,C,H,W]", "[]", ""})
        EXPECT_EQ(Layout(Layout(text).to_string()), Layout(text)) << text;
}

TEST(Layout, MalformedStringsAreErrorsQuotingTheText) {
    auto message_of = [](const char* text) {
        try {
            Layout l(text);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message_of("NC!W").find("unexpected character '!'"), std::string::npos);
    EXPECT_NE(message_of("NC!W").find("'NC!W'"), std::string::npos);
    EXPECT_NE(message_of("NCHN").find("dimension 'N' appears twice"), std::string::npos);
    EXPECT_NE(message_of("N...C...").find("'...' may appear only once"), std::string::npos);
    EXPECT_NE(message_of("[N,C,H,W").find("missing the closing ']'"), std::string::npos);
    EXPECT_NE(message_of("[N,,C]").find("empty dimension name"), std::string::npos);
    EXPECT_NE(message_of("[N,1x,C]").find("'1x' is not a dimension name"), std::string::npos);
    EXPECT_NE(message_of("N1CH").find("unexpected character '1'"), std::string::npos);
    EXPECT_NE(message_of("N..").find("unexpected character '.'"), std::string::npos);
}

TEST(Layout, MissingDimensionIsNotFound) {
    try {
        Layout("NC").get_index("H");
        FAIL() << "no error";
    } catch (const NotFound& e) {
        EXPECT_NE(std::string(e.what()).find("layout 'NC' has no dimension 'H'"),
                  std::string::npos);
    }
    EXPECT_THROW(Layout("NCHW").get_index("C", 3), InvalidArgument);  // rank does not fit
}

}  // namespace
}  // namespace vireo
