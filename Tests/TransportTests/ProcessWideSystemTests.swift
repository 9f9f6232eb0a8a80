import Testing
import Transport

/// A process-wide system: installed once, with scoped values that hold for a task and the
/// tasks it starts, and for nothing else.
///
/// Checked to fail: with `bootstrap` replacing the installed value, `installsOnceAndKeepsTheFirst`
/// reads "second"; with the scoped value stored process-wide instead of in a task-local, the two
/// scopes of `scopesRunningSideBySideNeverSeeEachOther` read each other's.
@Suite struct ProcessWideSystemTests {
    @Test func readsTheDefaultUntilTheBootstrap() throws {
        let system = ProcessWideSystem(name: "TestSystem", default: "default")
        #expect(system.value == "default")
        #expect(!system.isBootstrapped)
        try system.bootstrap("installed")
        #expect(system.value == "installed")
        #expect(system.isBootstrapped)
    }

    @Test func installsOnceAndKeepsTheFirst() throws {
        // Given a system bootstrapped once
        let system = ProcessWideSystem(name: "TestSystem", default: "default")
        try system.bootstrap("first")

        // When it is bootstrapped again
        let error = #expect(throws: SystemBootstrapError.self) { try system.bootstrap("second") }

        // Then the first value stays, and the error names the system and the way out
        #expect(system.value == "first")
        #expect(error?.system == "TestSystem")
        #expect(error?.message.contains("TestSystem was bootstrapped already") == true)
        #expect(error?.message.contains("scoped value") == true)
    }

    @Test func anOptionalSystemCountsNoneAsItsBootstrap() throws {
        let system = ProcessWideSystem<String?>(name: "TestSystem", default: nil)
        try system.bootstrap(nil)
        #expect(system.isBootstrapped)
        #expect(throws: SystemBootstrapError.self) { try system.bootstrap("late") }
        #expect(system.value == nil)
    }

    @Test func aScopedValueHoldsForTheTaskAndTheTasksItStarts() async throws {
        let system = ProcessWideSystem(name: "TestSystem", default: "default")
        try system.bootstrap("installed")
        let seen = await system.withValue("scoped") {
            async let child = system.value
            let unstructured = Task { system.value }
            let detached = Task.detached { system.value }
            return (system.value, await child, await unstructured.value, await detached.value)
        }
        #expect(seen.0 == "scoped")
        #expect(seen.1 == "scoped")
        #expect(seen.2 == "scoped")
        // A detached task inherits nothing: it sees what the process installed.
        #expect(seen.3 == "installed")
        #expect(system.value == "installed")
    }

    @Test func scopesRunningSideBySideNeverSeeEachOther() async throws {
        let system = ProcessWideSystem(name: "TestSystem", default: "default")
        let values = await withTaskGroup(of: [String].self) { group in
            for name in ["a", "b"] {
                group.addTask {
                    await system.withValue(name) {
                        var seen: [String] = []
                        for _ in 0..<50 {
                            seen.append(system.value)
                            await Task.yield()
                        }
                        return seen
                    }
                }
            }
            return await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(values.count == 2)
        for seen in values {
            #expect(Set(seen).count == 1, "one scope saw \(Set(seen))")
        }
    }
}
