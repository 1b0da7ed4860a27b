// Request bodies captured from kubectl 1.32 (`kubectl create ...` against a listener that saved
// them), decoded and compared with what the same kubectl command prints with
// `--dry-run=client -o json`: the JSON a JSON client sends for the very same Go object.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "fakekube/api/internal/protobuf.h"

namespace fakekube {
namespace {

struct Capture {
  const char* name;
  const char* command;
  const char* hex;   // the body, Content-Type application/vnd.kubernetes.protobuf
  const char* json;  // the same command's `--dry-run=client -o json`
};

// How GoogleTest names a capture in its output: the kubectl command.
void PrintTo(const Capture& capture, std::ostream* os) { *os << capture.name; }

// clang-format off
const Capture kCaptures[] = {
    {"cm",
     "kubectl create configmap c1 --from-literal=a=b --from-literal=x=yz --from-file=bin=bin.dat  (bin.dat = \"hello\\x00\\xff\")",
     "6b3873000a0f0a0276311209436f6e6669674d617012350a120a02633112001a0022002a0032003800420012"
     "060a016112016212070a01781202797a1a0e0a0362696e120768656c6c6f00ff1a002200",
     R"json({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c1","creationTimestamp":null},"data":{"a":"b","x":"yz"},"binaryData":{"bin":"aGVsbG8A/w=="}})json"},
    {"secret",
     "kubectl create secret generic s1 --from-literal=user=admin --type=Opaque",
     "6b3873000a0c0a0276311206536563726574122b0a120a02733112001a0022002a00320038004200120d0a04"
     "75736572120561646d696e1a064f70617175651a002200",
     R"json({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1","creationTimestamp":null},"data":{"user":"YWRtaW4="},"type":"Opaque"})json"},
    {"secret-docker",
     "kubectl create secret docker-registry reg --docker-username=u --docker-password=p --docker-server=r.io",
     "6b3873000a0c0a0276311206536563726574128c010a130a0372656712001a0022002a003200380042001255"
     "0a112e646f636b6572636f6e6669676a736f6e12407b226175746873223a7b22722e696f223a7b2275736572"
     "6e616d65223a2275222c2270617373776f7264223a2270222c2261757468223a2264547077227d7d7d1a1e6b"
     "756265726e657465732e696f2f646f636b6572636f6e6669676a736f6e1a002200",
     R"json({"kind":"Secret","apiVersion":"v1","metadata":{"name":"reg","creationTimestamp":null},"data":{".dockerconfigjson":"eyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fQ=="},"type":"kubernetes.io/dockerconfigjson"})json"},
    {"ns",
     "kubectl create namespace team",
     "6b3873000a0f0a02763112094e616d657370616365121c0a140a047465616d12001a0022002a003200380042"
     "0012001a020a001a002200",
     R"json({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team","creationTimestamp":null},"spec":{},"status":{}})json"},
    {"deploy",
     "kubectl create deployment web --image=nginx --replicas=2 --port=80",
     "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b8010a1f0a0377656212001a0022002a"
     "003200380042005a0a0a0361707012037765621286010802120c0a0a0a0361707012037765621a6c0a1c0a00"
     "12001a0022002a003200380042005a0a0a036170701203776562124c122e0a056e67696e7812056e67696e78"
     "2a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800"
     "600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
     R"json({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx","ports":[{"containerPort":80}],"resources":{}}]}},"strategy":{}},"status":{}})json"},
    {"job",
     "kubectl create job j --image=busybox -- echo hi",
     "6b3873000a0f0a0862617463682f763112034a6f621282010a110a016a12001a0022002a0032003800420012"
     "6332610a100a0012001a0022002a00320038004200124d122a0a016a120762757379626f781a046563686f1a"
     "0268692a0042006a007200800100880100900100a201001a054e65766572320042004a005200580060006800"
     "8201008a01009a0100c201001a082000280030003a001a002200",
     R"json({"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j","creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"j","image":"busybox","command":["echo","hi"],"resources":{}}],"restartPolicy":"Never"}}},"status":{}})json"},
    {"cronjob",
     "kubectl create cronjob cj --image=busybox --schedule='*/1 * * * *' -- date",
     "6b3873000a130a0862617463682f7631120743726f6e4a6f6212a4010a120a02636a12001a0022002a003200"
     "38004200128b010a0b2a2f31202a202a202a202a1a002a7a0a120a02636a12001a0022002a00320038004200"
     "126432620a100a0012001a0022002a00320038004200124e12270a02636a120762757379626f781a04646174"
     "652a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a00520058006000"
     "68008201008a01009a0100c201001a001a002200",
     R"json({"kind":"CronJob","apiVersion":"batch/v1","metadata":{"name":"cj","creationTimestamp":null},"spec":{"schedule":"*/1 * * * *","jobTemplate":{"metadata":{"name":"cj","creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"cj","image":"busybox","command":["date"],"resources":{}}],"restartPolicy":"OnFailure"}}}}},"status":{}})json"},
    {"svc-clusterip",
     "kubectl create service clusterip s1 --tcp=80:8080",
     "6b3873000a0d0a02763112075365727669636512660a1d0a02733112001a0022002a003200380042005a090a"
     "036170701202733112410a1b0a0738302d38303830120354435018502207080010903f1a00280012090a0361"
     "7070120273311a002209436c757374657249503a00420052005a00600068001a020a001a002200",
     R"json({"kind":"Service","apiVersion":"v1","metadata":{"name":"s1","creationTimestamp":null,"labels":{"app":"s1"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"s1"},"type":"ClusterIP"},"status":{"loadBalancer":{}}})json"},
    {"svc-nodeport",
     "kubectl create service nodeport s2 --tcp=80:8080 --node-port=30080",
     "6b3873000a0d0a02763112075365727669636512670a1d0a02733212001a0022002a003200380042005a090a"
     "036170701202733212420a1d0a0738302d38303830120354435018502207080010903f1a002880eb0112090a"
     "03617070120273321a0022084e6f6465506f72743a00420052005a00600068001a020a001a002200",
     R"json({"kind":"Service","apiVersion":"v1","metadata":{"name":"s2","creationTimestamp":null,"labels":{"app":"s2"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080,"nodePort":30080}],"selector":{"app":"s2"},"type":"NodePort"},"status":{"loadBalancer":{}}})json"},
    {"svc-lb",
     "kubectl create service loadbalancer s3 --tcp=443:https",
     "6b3873000a0d0a02763112075365727669636512700a1d0a02733312001a0022002a003200380042005a090a"
     "0361707012027333124b0a220a093434332d6874747073120354435018bb03220b080110001a056874747073"
     "280012090a03617070120273331a00220c4c6f616442616c616e6365723a00420052005a00600068001a020a"
     "001a002200",
     R"json({"kind":"Service","apiVersion":"v1","metadata":{"name":"s3","creationTimestamp":null,"labels":{"app":"s3"}},"spec":{"ports":[{"name":"443-https","protocol":"TCP","port":443,"targetPort":"https"}],"selector":{"app":"s3"},"type":"LoadBalancer"},"status":{"loadBalancer":{}}})json"},
    {"svc-extname",
     "kubectl create service externalname s4 --external-name=example.com",
     "6b3873000a0d0a02763112075365727669636512570a1d0a02733412001a0022002a003200380042005a090a"
     "0361707012027334123212090a03617070120273341a00220c45787465726e616c4e616d653a004200520b65"
     "78616d706c652e636f6d5a00600068001a020a001a002200",
     R"json({"kind":"Service","apiVersion":"v1","metadata":{"name":"s4","creationTimestamp":null,"labels":{"app":"s4"}},"spec":{"selector":{"app":"s4"},"type":"ExternalName","externalName":"example.com"},"status":{"loadBalancer":{}}})json"},
    {"svc-headless",
     "kubectl create service clusterip s5 --clusterip=None",
     "6b3873000a0d0a027631120753657276696365124d0a1d0a02733512001a0022002a003200380042005a090a"
     "0361707012027335122812090a03617070120273351a044e6f6e652209436c757374657249503a0042005200"
     "5a00600068001a020a001a002200",
     R"json({"kind":"Service","apiVersion":"v1","metadata":{"name":"s5","creationTimestamp":null,"labels":{"app":"s5"}},"spec":{"selector":{"app":"s5"},"clusterIP":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}})json"},
    {"sa",
     "kubectl create serviceaccount robot",
     "6b3873000a140a027631120e536572766963654163636f756e7412170a150a05726f626f7412001a0022002a"
     "003200380042001a002200",
     R"json({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"robot","creationTimestamp":null}})json"},
    {"quota",
     "kubectl create quota q --hard=cpu=1,memory=1G,pods=2 --scopes=BestEffort",
     "6b3873000a130a027631120d5265736f7572636551756f7461124c0a110a017112001a0022002a0032003800"
     "420012350a0a0a0363707512030a01310a0e0a066d656d6f727912040a0231470a0b0a04706f647312030a01"
     "32120a426573744566666f72741a001a002200",
     R"json({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q","creationTimestamp":null},"spec":{"hard":{"cpu":"1","memory":"1G","pods":"2"},"scopes":["BestEffort"]},"status":{}})json"},
    {"pc",
     "kubectl create priorityclass pc --value=1000 --description=high --preemption-policy=Never",
     "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312"
     "260a120a02706312001a0022002a0032003800420010e80718002204686967682a054e657665721a002200",
     R"json({"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"pc","creationTimestamp":null},"value":1000,"description":"high","preemptionPolicy":"Never"})json"},
    {"pdb",
     "kubectl create pdb p --selector=app=web --min-available=50%",
     "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e427564676574123a0a110a01"
     "7012001a0022002a0032003800420012190a09080110001a03353025120c0a0a0a0361707012037765621a0a"
     "080018002000280030001a002200",
     R"json({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"p","creationTimestamp":null},"spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}})json"},
    {"pdb2",
     "kubectl create pdb p2 --selector=app=web --max-unavailable=1",
     "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412380a120a02"
     "703212001a0022002a003200380042001216120c0a0a0a0361707012037765621a06080010011a001a0a0800"
     "18002000280030001a002200",
     R"json({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"p2","creationTimestamp":null},"spec":{"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":1},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}})json"},
    {"role",
     "kubectl create role r --verb=get,list --resource=pods,deployments.apps --resource-name=x",
     "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c65124e"
     "0a110a017212001a0022002a0032003800420012160a036765740a046c69737412001a04706f647322017812"
     "210a036765740a046c6973741204617070731a0b6465706c6f796d656e74732201781a002200",
     R"json({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"r","creationTimestamp":null},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"],"resourceNames":["x"]},{"verbs":["get","list"],"apiGroups":["apps"],"resources":["deployments"],"resourceNames":["x"]}]})json"},
    {"clusterrole",
     "kubectl create clusterrole cr --verb=get --non-resource-url=/logs/*",
     "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c75737465"
     "72526f6c6512240a120a02637212001a0022002a00320038004200120e0a036765742a072f6c6f67732f2a1a"
     "002200",
     R"json({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"cr","creationTimestamp":null},"rules":[{"verbs":["get"],"nonResourceURLs":["/logs/*"]}]})json"},
    {"clusterrole-agg",
     "kubectl create clusterrole cr2 --aggregation-rule=a=b",
     "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c75737465"
     "72526f6c6512210a130a0363723212001a0022002a003200380042001a0a0a080a060a01611201621a002200",
     R"json({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"cr2","creationTimestamp":null},"rules":null,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}})json"},
    {"rolebinding",
     "kubectl create rolebinding rb --role=r --user=alice --serviceaccount=default:robot --group=devs",
     "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c654269"
     "6e64696e6712b6010a120a02726212001a0022002a00320038004200122a0a04557365721219726261632e61"
     "7574686f72697a6174696f6e2e6b38732e696f1a05616c6963652200122a0a0547726f75701219726261632e"
     "617574686f72697a6174696f6e2e6b38732e696f1a0464657673220012220a0e536572766963654163636f75"
     "6e7412001a05726f626f74220764656661756c741a240a19726261632e617574686f72697a6174696f6e2e6b"
     "38732e696f1204526f6c651a01721a002200",
     R"json({"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"rb","creationTimestamp":null},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"devs"},{"kind":"ServiceAccount","name":"robot","namespace":"default"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}})json"},
    {"crb",
     "kubectl create clusterrolebinding crb --clusterrole=cr --user=bob",
     "6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c75737465"
     "72526f6c6542696e64696e67126d0a130a0363726212001a0022002a0032003800420012280a045573657212"
     "19726261632e617574686f72697a6174696f6e2e6b38732e696f1a03626f6222001a2c0a19726261632e6175"
     "74686f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a0263721a002200",
     R"json({"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"crb","creationTimestamp":null},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cr"}})json"},
    {"ingress",
     "kubectl create ingress ing --class=nginx --rule='foo.com/bar*=svc:80,tls=sec' --default-backend=def:http --annotation=a=b",
     "6b3873000a1f0a146e6574776f726b696e672e6b38732e696f2f76311207496e6772657373127b0a1b0a0369"
     "6e6712001a0022002a0032003800420062060a016112016212580a11220f0a0364656612080a046874747010"
     "00120e0a07666f6f2e636f6d12037365631a2c0a07666f6f2e636f6d12210a1f0a1d0a042f626172120d220b"
     "0a0373766312040a0010501a0650726566697822056e67696e781a020a001a002200",
     R"json({"kind":"Ingress","apiVersion":"networking.k8s.io/v1","metadata":{"name":"ing","creationTimestamp":null,"annotations":{"a":"b"}},"spec":{"ingressClassName":"nginx","defaultBackend":{"service":{"name":"def","port":{"name":"http"}}},"tls":[{"hosts":["foo.com"],"secretName":"sec"}],"rules":[{"host":"foo.com","http":{"paths":[{"path":"/bar","pathType":"Prefix","backend":{"service":{"name":"svc","port":{"number":80}}}}]}}]},"status":{"loadBalancer":{}}})json"},
};
// clang-format on

std::string unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

class KubectlCaptureTest : public ::testing::TestWithParam<Capture> {};

TEST_P(KubectlCaptureTest, DecodesToWhatAJsonClientSends) {
  const Capture& capture = GetParam();
  auto decoded = decodeKubernetesProtobuf(unhex(capture.hex));
  ASSERT_TRUE(decoded.has_value()) << capture.command << "\n" << decoded.error().str();
  Json expected = Json::parse(capture.json);
  EXPECT_EQ(*decoded, expected) << capture.command << "\nactual:   " << decoded->dump()
                                << "\nexpected: " << expected.dump();
}

INSTANTIATE_TEST_SUITE_P(Kubectl132, KubectlCaptureTest, ::testing::ValuesIn(kCaptures),
                         [](const ::testing::TestParamInfo<Capture>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// `kubectl drain` falls back to deleting pods when the eviction subresource is not served, and
// sends this DeleteOptions body.
TEST(KubectlCaptureTest, DrainDeleteOptions) {
  auto decoded = decodeKubernetesProtobuf(
      unhex("6b3873000a130a027631120d44656c6574654f7074696f6e7312001a002200"));
  ASSERT_TRUE(decoded.has_value()) << decoded.error().str();
  EXPECT_EQ(*decoded, Json::parse(R"({"apiVersion": "v1", "kind": "DeleteOptions"})"));
}

}  // namespace
}  // namespace fakekube
