#include <gtest/gtest.h>
TEST(MetisPlacer, Placeholder) {}
