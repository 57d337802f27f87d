// The overlay table (app/viewer/overlays.h): every token switches its field through --view both ways, tokens, labels
// and fields are unique, the View panel draws every overlay's checkbox from the table, and the overlay table of
// docs/viewer.md is the one the code generates.
#include "viewer/overlays.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
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

TEST(Overlays, LabelsAndFieldsAreUniqueAndFound) {
  std::set<std::string> labels;
  for (const OverlayToggle& o : overlay_toggles()) {
    SCOPED_TRACE(o.token);
    EXPECT_TRUE(labels.insert(o.label).second) << "two overlays labelled " << o.label;
    EXPECT_FALSE(std::string(o.summary).empty());
    EXPECT_FALSE(std::string(o.help).empty());
    EXPECT_EQ(find_overlay(o.field), &o) << "another overlay switches the same field";
  }
  EXPECT_EQ(find_overlay(&ViewState::auto_force_scale), nullptr);  // a View panel switch that is not an overlay
}

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(CONTACTLAB_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The View panel (app/viewer/panels_view.cpp) draws each overlay once, through overlay_checkbox, so that its label
// and help are the table's; a hand-written checkbox of an overlay's field would be a second copy of them.
TEST(Overlays, ViewPanelDrawsEveryOverlayFromTheTable) {
  const std::string panel = read_source("app/viewer/panels_view.cpp");
  ASSERT_FALSE(panel.empty()) << "app/viewer/panels_view.cpp not found";
  std::multiset<std::string> drawn;
  const std::regex call(R"(overlay_checkbox\(view, &ViewState::(\w+)\))");
  for (auto it = std::sregex_iterator(panel.begin(), panel.end(), call); it != std::sregex_iterator(); ++it)
    drawn.insert((*it)[1]);
  std::set<std::string> fields;
  const std::regex member(R"(&ViewState::(\w+)\})");
  const std::string table = read_source("app/viewer/overlays.cpp");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), member); it != std::sregex_iterator(); ++it)
    fields.insert((*it)[1]);
  EXPECT_EQ(fields.size(), overlay_toggles().size());
  for (const std::string& field : fields) {
    EXPECT_EQ(drawn.count(field), 1u) << field << ": drawn " << drawn.count(field) << " times";
    EXPECT_EQ(panel.find("&view." + field + ")"), std::string::npos) << field << ": a hand-written checkbox";
  }
  EXPECT_EQ(drawn.size(), fields.size());
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
