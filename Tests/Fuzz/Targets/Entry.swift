#if PARLEY_FUZZ
    import Foundation

    // Built with `swift build --sanitize=fuzzer -Xswiftc -DPARLEY_FUZZ` (Tools/scripts/fuzz.sh):
    // libFuzzer's own `main` drives the two functions below, and the target is the one named by
    // `PARLEY_FUZZ_TARGET`.

    /// The target `PARLEY_FUZZ_TARGET` names, chosen once; `list` prints the targets and exits.
    let selectedTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["PARLEY_FUZZ_TARGET"] ?? ""
        if name == "list" {
            for target in fuzzTargets { print("\(target.name) \(target.maximumLength) \(target.summary)") }
            exit(0)
        }
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            let names = fuzzTargets.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("Set PARLEY_FUZZ_TARGET to one of: \(names).\n".utf8))
            exit(2)
        }
        return target
    }()

    @_cdecl("LLVMFuzzerInitialize")
    func fuzzerInitialize(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
    ) -> Int32 {
        _ = selectedTarget
        return 0
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        selectedTarget.run(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
#else
    import Foundation

    /// Without libFuzzer (the ordinary build): runs a target on files, to replay a corpus or a
    /// crash without the sanitizers.
    ///
    /// ```
    /// parley-fuzz content-range Tests/Fuzz/Corpus/content-range crash-1234
    /// parley-fuzz --list
    /// ```
    @main
    enum Replay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "--list" {
                for target in fuzzTargets { print("\(target.name) \(target.maximumLength) \(target.summary)") }
                return
            }
            guard let name = arguments.first, let target = fuzzTargets.first(where: { $0.name == name }) else {
                let names = fuzzTargets.map(\.name).joined(separator: ", ")
                FileHandle.standardError.write(
                    Data("usage: parley-fuzz TARGET FILE_OR_FOLDER... (targets: \(names))\n".utf8))
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                for file in files(at: path) {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        FileHandle.standardError.write(Data("parley-fuzz: cannot read \(file)\n".utf8))
                        exit(1)
                    }
                    data.withUnsafeBytes { target.run($0.bindMemory(to: UInt8.self)) }
                    count += 1
                }
            }
            print("\(target.name): \(count) inputs, every invariant held")
        }

        /// The files in a folder (sorted), or the path itself when it is not a folder.
        private static func files(at path: String) -> [String] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                return [path]
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }
        }
    }
#endif
