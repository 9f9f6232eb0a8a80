extension RequestHandle {
    /// Registers work to run each time a run ends with a ``RequestStop``: a plugin or a
    /// middleware stopped the request on purpose.
    ///
    /// A stopped run calls back no ``success(_:)``, ``failure(_:)`` or ``completion(_:)``
    /// handler: the code that stopped it has dealt with the answer. What must still end with
    /// the run, such as a loading mask (Feedback's `load` and `progress` use this), ends here.
    /// Awaits are not affected: ``value`` throws the stop, ``result`` returns it.
    ///
    /// - Parameter hook: Runs once per stopped run, on the handle's ``executor`` when it has
    ///   one, otherwise on the thread that finished the run; in the order added among the
    ///   handle's handlers. It stays registered for later runs, as handlers do.
    public func onStop(_ hook: @escaping @Sendable (RequestStop) -> Void) {
        let executor = executor
        addOutcomeHandler(seesStops: true) { result in
            guard case .failure(let error) = result, let stop = error as? RequestStop else { return }
            if let executor { executor.execute { hook(stop) } } else { hook(stop) }
        }
    }
}
