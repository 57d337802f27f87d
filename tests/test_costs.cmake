# The seconds the longest tests take (one run each on the 2-core machine: Release, and under the sanitizers), as
# ctest's COST: with two jobs ctest starts the costliest tests first, and a fresh build has no timings of its own
# (Testing/Temporary/CTestCostData.txt), so without these it runs in declaration order and a test of minutes drawn
# last holds the suite's end while the other core idles. Scheduling only: a test missing here still runs, and a
# name no longer registered is ignored (tests/fuzz sets its own). Refresh from a build's CTestCostData.txt (third column) after large changes.
# A parameterised test's name in ctest ends in its parameter, as gtest_discover_tests writes it.
set(CONTACTLAB_TOWER_SLEEPING_TEST "Sweep/SleepingChangesNoOutcome.OfAnyPoint/tower20_light  # GetParam() = \"tower20_light\"")
set(CONTACTLAB_VOLUME_YAW_TEST "Methods/CoulombFriction.InclineBoxSlidesOrHoldsAtEveryYaw/volume  # GetParam() = \"volume\"")
set(CONTACTLAB_TEST_COSTS
    scenes.pile1000.pid-penalty 340 cli.conformance_doc 250 scenes.pyramid20.pid-penalty 120 scenes.pile1000.volume 100
    scenes.bowl_drop.volume 92 scenes.tower320.volume 86 scenes.tower320.pid-penalty 82
    scenes.pile1000.implicit-penalty 62 scenes.bowl_drop 48 scenes.pyramid20 35 scenes.tower320 25 scenes.pile1000 8
    scenes.wall200.pid-penalty 55 scenes.wall.pid-penalty 48 scenes.scripted_wall_hit.pid-penalty 47
    scenes.ball_grid.pid-penalty 41 scenes.wall200 35 scenes.scripted_wall_hit 35 viewer.smoke 76 scenes.wall 18
    "${CONTACTLAB_TOWER_SLEEPING_TEST}" 60 scenes.mesh_pile 57 viewer.input 53 scenes.ball_grid 10
    scenes.volume_pile 46 scenes.bowls20 41
    scenes.scripted_ball_push 40 scenes.bowls 38 cli.faults 37 scenes.perforated_chains 36
    Excavator.KeyboardCyclePicksUpARockCarriesItAndTipsItOut 25 VolumeScenes.PileOfScannedMeshesComesToRestInTheBox 20
    scenes.torus_stack 18 scenes.bolt_screwdriver 18 scenes.bolt_in_hole 16 scenes.pile 13 scenes.default 13
    WorldCopy.ACopyStepsOnBitForBitUnderEveryMethod 13 ImplicitPenaltyFrictionStage.AGripperHoldsWhatCoulombHolds 12
    scenes.volume_tori 12 scenes.excavator 10 PidPenaltyFinishingSweeps.ADeepPyramidComesToRest 36
    ShockPropagation.GappedPyramidOf100RowsStaysAtRestInDoubleAndFloat 19)
set(CONTACTLAB_SANITIZE_TEST_COSTS
    "${CONTACTLAB_TOWER_SLEEPING_TEST}" 200 VolumeScenes.PileOfScannedMeshesComesToRestInTheBox 160
    WorldCopy.ACopyStepsOnBitForBitUnderEveryMethod 130 "${CONTACTLAB_VOLUME_YAW_TEST}" 62
    ImplicitPenaltyFrictionStage.AGripperHoldsWhatCoulombHolds 134
    Excavator.KeyboardCyclePicksUpARockCarriesItAndTipsItOut 72 Scene.EveryShippedSceneLoadsWithoutWarnings 33
    PidPenaltySolver.BallCarryingALoadRestsAtEveryStepSizeAndMass 50 Scene.EveryShippedSceneRoundTripsThroughJson 30
    SdfGrid.InterpolatedValuesWithinHalfACell 40 ContinuousStep.CostGrowsWithTheMovingPairsNotTheSquareOfTheBodies 26
    ImplicitPenaltySolver.BoxTumblingOntoItsCornerGainsNoEnergyAtEveryStepAndSize 24
    ImplicitPenaltyScenes.BoltTurnsWhenTheTorqueBeatsTheFriction 36 PidPenaltySolver.AGripperHoldsWhatCoulombHolds 23
    PidPenaltySolver.StacksStandAtEveryStep 18 VolumeScenes.ArmadillosComeToRestOnEachOther 13
    ImplicitPenaltySolver.BoxOnAnInclineSlidesOrHoldsAtTheEdgeOfSticking 12 VolumeScenes.StackOfToriSettlesAndStands 13
    PidPenaltyImplicit.KeepsThePapersSubstepUnderAnyLoad 11 Bvh.MeshOverlapMatchesBruteForce 11
    PidPenaltyContactPoints.ABoltRestsInItsThreadedHole 10 MeshContacts.StackOfToriSettles 10)

# The slow group (label slow; docs/testing.md, "Test groups"), which the README's test command and .ci/sanitize
# leave out and `ctest -L slow` runs: the points of the conformance sweep as tests of their own (the main build's
# cli.conformance_doc runs every one of them; tests/CMakeLists.txt), and the cells of the shipped scenes (scene:method)
# that take 40 s of CPU or more on the reference machine (tests/app/shipped_scene.py prints each run's CPU time),
# each a test of its own that the scene's test skips. About 1,300 s of CPU of the 2,700 the main build's tests took.
set(CONTACTLAB_SLOW_SCENE_CELLS
    pile1000:pid-penalty pile1000:volume pile1000:implicit-penalty pyramid20:pid-penalty bowl_drop:volume
    tower320:volume tower320:pid-penalty wall200:pid-penalty wall:pid-penalty scripted_wall_hit:pid-penalty
    ball_grid:pid-penalty)

# The tests that run longest under the sanitizers (40 s and more each, about 1,100 s in all on the 2-core machine) and
# repeat code that shorter tests run there too: the long physics runs of the tower's sleeping test, the scanned-mesh
# pile, the gripper, the excavator, the bolt, pid's loaded ball at every step and mass and its deep pyramids, lcp's
# 100-row gapped pyramid at rest for 300 steps, the copy of six scenes stepped on under every method (the replay and
# history tests copy worlds there too), volume's box on the incline at every yaw (its ball at every yaw and its edge
# of sticking stay), and the distance grids' accuracy sweep.
# The sanitizer build labels them `long_under_sanitizers` and .ci/sanitize leaves them out (`ctest -LE
# 'slow|long_under_sanitizers'`); the main build runs them, and `ctest -L long_under_sanitizers` in build-asan/ runs
# them under the sanitizers by hand (docs/testing.md, "Sanitizers").
set(CONTACTLAB_LONG_UNDER_SANITIZERS
    "${CONTACTLAB_TOWER_SLEEPING_TEST}|conformance_sweep"
    VolumeScenes.PileOfScannedMeshesComesToRestInTheBox ImplicitPenaltyFrictionStage.AGripperHoldsWhatCoulombHolds
    Excavator.KeyboardCyclePicksUpARockCarriesItAndTipsItOut ImplicitPenaltyScenes.BoltTurnsWhenTheTorqueBeatsTheFriction
    PidPenaltySolver.BallCarryingALoadRestsAtEveryStepSizeAndMass SdfGrid.InterpolatedValuesWithinHalfACell
    WorldCopy.ACopyStepsOnBitForBitUnderEveryMethod "${CONTACTLAB_VOLUME_YAW_TEST}"
    PidPenaltyFinishingSweeps.ADeepPyramidComesToRest
    ShockPropagation.GappedPyramidOf100RowsStaysAtRestInDoubleAndFloat)

# Writes the costs of this build's table as a ctest include file run after the GoogleTest discovery's (which define
# the gtest tests when ctest starts) and sets those of the tests this directory adds itself.
function(contactlab_set_test_costs)
  if(CONTACTLAB_SANITIZE)
    set(costs ${CONTACTLAB_SANITIZE_TEST_COSTS})
  else()
    set(costs ${CONTACTLAB_TEST_COSTS})
  endif()
  set(script "# Generated by tests/test_costs.cmake: the costliest tests start first.\n")
  list(LENGTH costs n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET costs ${i} name)
    list(GET costs ${j} seconds)
    if(TEST ${name})
      set_tests_properties(${name} PROPERTIES COST ${seconds})
    else()
      string(APPEND script "set_tests_properties([=[${name}]=] PROPERTIES COST ${seconds})\n")
    endif()
  endforeach()
  # The sweep's points join the slow group; gtest_discover_tests lists them when ctest starts.
  string(APPEND script "foreach(t IN LISTS contactlab_sweep_tests)\n"
                       "  if(t MATCHES \"^Sweep/ConformanceSweep\\\\.\")\n"
                       "    set_tests_properties(\"\${t}\" PROPERTIES LABELS \"conformance_sweep;slow\")\n"
                       "  endif()\n"
                       "endforeach()\n")
  if(CONTACTLAB_SANITIZE)
    foreach(entry ${CONTACTLAB_LONG_UNDER_SANITIZERS})
      string(REPLACE "|" ";" labels "${entry};long_under_sanitizers")
      list(POP_FRONT labels name)
      string(APPEND script "set_tests_properties([=[${name}]=] PROPERTIES LABELS \"${labels}\")\n")
    endforeach()
  endif()
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/test_costs_include.cmake "${script}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/test_costs_include.cmake)
endfunction()
