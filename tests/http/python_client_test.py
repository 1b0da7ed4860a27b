"""Debian's python3-kubernetes client against `fakekube serve`: list, watch from a
resourceVersion, and the 410 Gone path after compaction.

Run by ctest as: /usr/bin/python3 python_client_test.py <path to the fakekube binary>
(Debian's python modules load only in /usr/bin/python3.)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import kubernetes
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:  # the package is installed by tools/test; without it the suite cannot run
    kubernetes = None

FAKEKUBE = None


class Serve:
    """`fakekube serve` on a free loopback port, with its kubeconfig."""

    def __init__(self, extra=()):
        self.dir = tempfile.mkdtemp(prefix="fakekube-py-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.process = subprocess.Popen(
            [FAKEKUBE, "serve", "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig,
             *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("fakekube: serving on "):
            self.process.kill()
            raise RuntimeError("fakekube serve did not start: %r %s"
                               % (line, self.process.stderr.read()))
        self.url = line.strip().split(" ")[-1]

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=60)
        self.process.stdout.close()
        self.process.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return code


@unittest.skipIf(kubernetes is None,
                 "python3-kubernetes is not installed (tools/test installs it)")
class PythonClientTest(unittest.TestCase):
    def setUp(self):
        self.serve = Serve()
        api_client = config.new_client_from_config(config_file=self.serve.kubeconfig)
        self.core = client.CoreV1Api(api_client)
        self.apps = client.AppsV1Api(api_client)

    def tearDown(self):
        self.assertEqual(self.serve.stop(), 0)

    def config_map(self, name, data):
        return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data=data)

    def test_list_returns_typed_objects(self):
        for i in range(3):
            self.core.create_namespaced_config_map("default", self.config_map("c%d" % i, {"i": str(i)}))
        listed = self.core.list_namespaced_config_map("default")
        names = sorted(item.metadata.name for item in listed.items)
        self.assertEqual(names, ["c0", "c1", "c2"])
        self.assertTrue(int(listed.metadata.resource_version) > 0)
        page = self.core.list_namespaced_config_map("default", limit=2)
        self.assertEqual(len(page.items), 2)
        self.assertTrue(page.metadata._continue)
        rest = self.core.list_namespaced_config_map("default", limit=2, _continue=page.metadata._continue)
        self.assertEqual([i.metadata.name for i in page.items + rest.items], ["c0", "c1", "c2"])

    def test_errors_are_kubernetes_statuses(self):
        with self.assertRaises(ApiException) as missing:
            self.core.read_namespaced_config_map("absent", "default")
        self.assertEqual(missing.exception.status, 404)
        self.core.create_namespaced_config_map("default", self.config_map("once", {}))
        with self.assertRaises(ApiException) as duplicate:
            self.core.create_namespaced_config_map("default", self.config_map("once", {}))
        self.assertEqual(duplicate.exception.status, 409)
        status = json.loads(duplicate.exception.body)
        self.assertEqual(status["reason"], "AlreadyExists")
        self.assertEqual(status["message"], 'configmaps "once" already exists')

    def test_watch_from_a_resource_version_sees_only_later_events(self):
        first = self.core.create_namespaced_config_map("default", self.config_map("before", {}))
        start = first.metadata.resource_version
        self.core.create_namespaced_config_map("default", self.config_map("after", {"k": "v"}))
        self.core.patch_namespaced_config_map("after", "default", {"data": {"k": "w"}})
        self.core.delete_namespaced_config_map("after", "default")
        seen = []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_config_map, "default",
                              resource_version=start, timeout_seconds=30):
            seen.append((event["type"], event["object"].metadata.name))
            if event["type"] == "DELETED":
                w.stop()
        self.assertEqual(seen, [("ADDED", "after"), ("MODIFIED", "after"), ("DELETED", "after")])


@unittest.skipIf(kubernetes is None,
                 "python3-kubernetes is not installed (tools/test installs it)")
class CompactedWatchTest(unittest.TestCase):
    """A server that keeps only 3 revisions of history, as a compacted etcd."""

    def setUp(self):
        self.serve = Serve(["--retained-revisions", "3"])
        self.core = client.CoreV1Api(config.new_client_from_config(config_file=self.serve.kubeconfig))

    def tearDown(self):
        self.assertEqual(self.serve.stop(), 0)

    def test_watch_from_a_compacted_resource_version_is_gone(self):
        old = self.core.create_namespaced_config_map(
            "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="old")))
        for i in range(6):
            self.core.patch_namespaced_config_map("old", "default", {"data": {"i": str(i)}})
        w = watch.Watch()
        with self.assertRaises(ApiException) as gone:
            for _ in w.stream(self.core.list_namespaced_config_map, "default",
                              resource_version=old.metadata.resource_version, timeout_seconds=30):
                pass
        self.assertEqual(gone.exception.status, 410)
        self.assertIn("too old resource version", str(gone.exception))
        # The client's answer to 410: list again, and watch from the list's version.
        listed = self.core.list_namespaced_config_map("default")
        self.assertEqual([i.metadata.name for i in listed.items], ["old"])
        self.assertEqual(listed.items[0].data, {"i": "5"})

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python_client_test.py <fakekube binary>")
    FAKEKUBE = sys.argv.pop(1)
    unittest.main(verbosity=2)
