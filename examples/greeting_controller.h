// GreetingController: the example controller of fakekube's examples/ project.
//
// For every Greeting (example.com/v1, namespaced, spec.name) it keeps a ConfigMap
// `<greeting>-greeting` whose data.greeting is "Hello, <spec.name>!", owned by the Greeting (so
// the garbage collector deletes it with it), and then records status.phase Ready and
// status.configMap. The ConfigMap is named after the Greeting, not generated, so a controller
// restarted after a crash finds the child it made before.
//
// It is written against fakekube's Client only, as any controller on the runtime is: the same
// code runs in a test on virtual time (greeting_controller_test.cpp), against `fakekube serve`,
// or against a real cluster through a RestClient.
#pragma once

#include "fakekube/fakekube.h"

namespace greeting {

inline const fakekube::GroupVersionResource kGreetings{"example.com", "v1", "greetings"};
using fakekube::kConfigMaps;  // fakekube/api/resources.h: the built-in resources

// The Greeting CustomResourceDefinition, as YAML.
extern const char* const kGreetingCustomResourceDefinition;

// Adds the controller to `manager`. This is the factory of an operator: a test's TestCluster
// runs it on a fresh Manager again after every crash of the operator.
fakekube::Result<void> addGreetingController(fakekube::Manager& manager);

}  // namespace greeting
