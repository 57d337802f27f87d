// The recorder's outputs: the CSV's fixed columns then one <name>_ms column per solver sub-stage (empty where a
// row's solver has no such stage), and the Chrome trace with the sub-stages nested in their stage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "telemetry/telemetry.h"
#include "support/scratch.h"

namespace cl {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const std::string& name) {
  return cl::test::scratch_path(name);
}

const std::string kFixed =
    "step,time,wall_ms,broad_phase_ms,narrow_phase_ms,graph_ms,solve_ms,integrate_ms,pairs,contacts,groups,"
    "layers,sleeping,iterations,residual,max_penetration,mean_penetration,kinetic_energy,potential_energy,"
    "signorini_m,adhesion_N,cone_N,dissipation_W,complementarity_W,normal_force_N,energy_change_J,"
    "momentum_error_Ns,angular_momentum_error_Nms";

}  // namespace

TEST(SubStages, DeclareResetsTimesAndAddAccumulates) {
  const SubStage specs[] = {{"one", StepStage::NarrowPhase}, {"two", StepStage::Solve}};
  SubStages s;
  s.declare(specs);
  s.add(1, 2.0);
  s.add(1, 0.5);
  s.add(5, 1.0);  // not declared: ignored
  ASSERT_EQ(s.size(), 2);
  EXPECT_STREQ(s.stages()[0].name, "one");
  EXPECT_EQ(s.stages()[0].ms, 0.0);
  EXPECT_EQ(s.stages()[1].ms, 2.5);
  EXPECT_EQ(s.stages()[1].parent, StepStage::Solve);
  s.declare(specs);  // the next step starts at zero
  EXPECT_EQ(s.stages()[1].ms, 0.0);
  // At most kCapacity are kept.
  SubStage many[SubStages::kCapacity + 2];
  s.declare(many);
  EXPECT_EQ(s.size(), SubStages::kCapacity);
}

TEST(Recorder, CsvHasFixedColumnsThenSubStagesInOrderOfFirstAppearance) {
  const SubStage first[] = {{"images", StepStage::NarrowPhase}, {"velocity_pgs", StepStage::Solve}};
  const SubStage second[] = {{"velocity_pgs", StepStage::Solve}, {"projection", StepStage::Integrate}};
  Recorder r;
  StepStats a;
  a.step = 1;
  a.max_penetration = 0.01;
  a.mean_penetration = 0.004;
  a.sub_stages.declare(first);
  a.sub_stages.add(0, 1.5);
  a.sub_stages.add(1, 0.25);
  r.add(a);
  StepStats b;  // as after a solver switch
  b.step = 2;
  b.sub_stages.declare(second);
  b.sub_stages.add(0, 0.75);
  b.sub_stages.add(1, 0.125);
  r.add(b);
  const std::string path = temp_path("csv.csv");
  std::string error;
  ASSERT_TRUE(r.write_csv(path, &error)) << error;
  std::istringstream text(read_all(path));
  std::string header, row1, row2;
  std::getline(text, header);
  std::getline(text, row1);
  std::getline(text, row2);
  EXPECT_EQ(header, kFixed + ",images_ms,velocity_pgs_ms,projection_ms");
  // mean_penetration follows max_penetration; a stage a row lacks is an empty cell.
  EXPECT_NE(row1.find(",0.01,0.004,"), std::string::npos) << row1;
  EXPECT_EQ(row1.substr(row1.size() - 10), ",1.5,0.25,") << row1;
  EXPECT_EQ(row2.substr(row2.size() - 12), ",,0.75,0.125") << row2;
  std::filesystem::remove(path);
}

TEST(Recorder, CsvWithoutSubStagesHasTheFixedColumnsOnly) {
  Recorder r;
  r.add(StepStats{});
  const std::string path = temp_path("plain.csv");
  std::string error;
  ASSERT_TRUE(r.write_csv(path, &error)) << error;
  std::istringstream text(read_all(path));
  std::string header;
  std::getline(text, header);
  EXPECT_EQ(header, kFixed);
  std::filesystem::remove(path);
}

TEST(Recorder, TraceNestsSubStagesInTheirStage) {
  const SubStage specs[] = {{"images", StepStage::NarrowPhase}, {"stabilization", StepStage::Integrate}};
  StepStats s;
  s.step = 1;
  s.profile = StepProfile{0.1, 2.0, 0.1, 0.5, 3.0, 6.0};
  s.sub_stages.declare(specs);
  s.sub_stages.add(0, 1.0);
  s.sub_stages.add(1, 2.0);
  Recorder r;
  r.add(s);
  const std::string path = temp_path("trace.json");
  std::string error;
  ASSERT_TRUE(r.write_trace(path, &error)) << error;
  const std::string json = read_all(path);
  // narrow_phase starts after broad_phase (100 us); images starts with it and lasts 1000 us. integrate starts at
  // 0.1 + 2 + 0.1 + 0.5 ms = 2700 us, and stabilization with it.
  EXPECT_NE(json.find(R"("name":"narrow_phase","cat":"step","ph":"X","pid":1,"tid":1,"ts":100,"dur":2000)"),
            std::string::npos) << json;
  EXPECT_NE(json.find(R"("name":"images","cat":"solver","ph":"X","pid":1,"tid":1,"ts":100,"dur":1000)"),
            std::string::npos) << json;
  EXPECT_NE(json.find(R"("name":"stabilization","cat":"solver","ph":"X","pid":1,"tid":1,"ts":2700,"dur":2000)"),
            std::string::npos) << json;
  std::filesystem::remove(path);
}

TEST(StepWriter, WritesWhatTheRecorderWritesStepByStep) {
  const SubStage specs[] = {{"images", StepStage::NarrowPhase}, {"solve_rows", StepStage::Solve}};
  Recorder recorder;
  StepWriter writer;
  std::string error;
  const std::string csv = temp_path("writer.csv"), trace = temp_path("writer.json");
  ASSERT_TRUE(writer.open(csv, trace, &error)) << error;
  for (int i = 1; i <= 5; ++i) {
    StepStats s;
    s.step = i;
    s.time = i / 60.0;
    s.profile.total = 1.5 * i;
    s.profile.solve = 0.5 * i;
    s.contacts = 3 * i;
    s.sub_stages.declare(specs);
    s.sub_stages.add(1, 0.25 * i);
    recorder.add(s);
    ASSERT_TRUE(writer.add(s, &error)) << error;
  }
  ASSERT_TRUE(writer.close(&error)) << error;
  ASSERT_TRUE(recorder.write_csv(temp_path("recorder.csv"), &error)) << error;
  ASSERT_TRUE(recorder.write_trace(temp_path("recorder.json"), &error)) << error;
  EXPECT_EQ(read_all(csv), read_all(temp_path("recorder.csv")));
  EXPECT_EQ(read_all(trace), read_all(temp_path("recorder.json")));
  EXPECT_EQ(read_all(csv).substr(0, read_all(csv).find('\n')), kFixed + ",images_ms,solve_rows_ms");
}

TEST(StepWriter, AFullDiskOrAnUnopenablePathIsAnError) {
  std::string error;
  {
    StepWriter writer;
    ASSERT_TRUE(writer.open("/dev/full", "", &error)) << error;
    StepStats s;
    s.step = 1;
    writer.add(s, &error);  // buffered: the failure may show only when flushed
    EXPECT_FALSE(writer.close(&error));
    EXPECT_NE(error.find("/dev/full: cannot write metrics file: No space left"), std::string::npos)
        << error;
  }
  {
    Recorder recorder;
    recorder.add(StepStats{});
    EXPECT_FALSE(recorder.write_trace("/dev/full", &error));
    EXPECT_NE(error.find("/dev/full: cannot write trace file: No space left"), std::string::npos)
        << error;
  }
  StepWriter writer;
  EXPECT_FALSE(writer.open("", "/nonexistent-dir/t.json", &error));
  EXPECT_NE(error.find("/nonexistent-dir/t.json: cannot write trace file: its folder "
                       "'/nonexistent-dir' does not exist"),
            std::string::npos)
      << error;
}

}  // namespace cl
