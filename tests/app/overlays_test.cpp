// The overlay table (app/viewer/overlays.h): every token switches its field through --view both ways, tokens are
// unique, and the overlay table of docs/viewer.md is the one the code generates.
#include "viewer/overlays.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "viewer/session.h"
#include "viewer/view_spec.h"

namespace cl::viewer {

TEST(Overlays, EveryTokenSwitchesItsFieldBothWays) {
  std::set<std::string> tokens;
  for (const OverlayToggle& o : overlay_toggles()) {
    SCOPED_TRACE(o.token);
    EXPECT_TRUE(tokens.insert(o.token).second) << "duplicate token";
    AppState app;
    std::string error;
    ASSERT_TRUE(apply_view_spec(app, o.token, &error)) << error;
    EXPECT_TRUE(app.view.*o.field);
    ASSERT_TRUE(apply_view_spec(app, std::string("-") + o.token, &error)) << error;
    EXPECT_FALSE(app.view.*o.field);
  }
}

TEST(Overlays, DocsTableIsTheGeneratedOne) {
  std::ifstream in(std::string(CONTACTLAB_SOURCE_DIR) + "/docs/viewer.md");
  ASSERT_TRUE(in) << "docs/viewer.md not found";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- overlays:begin -->\n", end = "<!-- overlays:end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), overlay_table_markdown())
      << "docs/viewer.md's overlay table is stale; the generated one:\n"
      << overlay_table_markdown();
}

}  // namespace cl::viewer
