// Lists the tools this package builds beside itself; building it builds them.
print("parley-bench parley-demo parley-fetch parley-mock-server parley-soak")
