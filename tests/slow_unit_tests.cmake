# The unit tests that take seconds where most take milliseconds (measured on a 2-core machine in
# the build tools/test makes). Their COST makes `ctest -j` start them with the end-to-end tests
# (COST 60, tests/CMakeLists.txt) instead of in the order they were discovered, so that the suite
# does not end waiting for one of them started last. Once the suite has run in a build dir, ctest
# orders by the times it measured there (Testing/Temporary/CTestCostData.txt) instead.
#
# ctest includes this file after the discovered tests (TEST_INCLUDE_FILES); a name that no longer
# exists is ignored, so a renamed test only loses its head start.
set_tests_properties(RayClusterTest.HundredRayClustersWithTwoWorkersAllReachReady
                     PROPERTIES COST 30)
set_tests_properties(DeploymentStoryReplayTest.EverySeedTellsTheSameStory PROPERTIES COST 8)
set_tests_properties(NestingDepth.PatchesFitAThreadStackAtTheLimit PROPERTIES COST 8)
set_tests_properties(NestingDepth.NlohmannsOwnWalksFitAThreadStackAtTheLimit PROPERTIES COST 6)
set_tests_properties(RayJobSidecarModeTest.FailingRayJobRespectsTheBackoffLimit PROPERTIES COST 4)
set_tests_properties(RayJobTest.FailingEntrypointExhaustsTheBackoffLimit PROPERTIES COST 4)
foreach(seed RANGE 1 10)
  set_tests_properties(Seeds/SeededRayClusterTest.TenClustersWithInformerLagEndReadyWithoutDuplicates/${seed}
                       PROPERTIES COST 3)
endforeach()
set_tests_properties(ContentionStory.WithoutABatchSchedulerNeitherJobEverStarts
                     PROPERTIES COST 30)
set_tests_properties(ContentionStory.WithVolcanoOneJobRunsAndFinishesThenTheOther
                     PROPERTIES COST 30)
set_tests_properties(GangCrashPoints.EveryKubeRayWriteCrashedConverges PROPERTIES COST 30)
set_tests_properties(GangCrashPoints.EveryVolcanoSchedulerWriteCrashedConverges PROPERTIES COST 15)
set_tests_properties(RayServiceCrashPoints.EveryCrashPointOverAnUpgradeConverges
                     PROPERTIES COST 200)
set_tests_properties(CrashtestBatchSchedulerTest.VolcanoRayJobSampleKeepsOneGangAtEveryCrashPoint
                     PROPERTIES COST 40)
