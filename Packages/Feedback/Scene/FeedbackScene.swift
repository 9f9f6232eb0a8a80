package import Transport

/// What is on screen: the masks stacked on each container, the transfers with their bars,
/// and the log lines held back while their region is masked.
///
/// Every presenter needs the same bookkeeping, so it lives here, apart from any drawing:
/// ``apply(_:at:)`` takes the events in the order they were presented and returns what must
/// be printed for good (messages, flushed log lines, one summary per finished request); the
/// live part (``regions``, ``transfers``) is whatever a presenter redraws.
///
/// The stacking rule is MBNetwork's: each running request adds its mask to its container,
/// the newest mask is the one shown, each finished request removes its own, and the container
/// is clear when the last one ends.
package struct FeedbackScene: Sendable {
    /// One request's mask.
    package struct MaskEntry: Sendable, Hashable {
        /// The mask and where it is.
        package var placement: MaskPlacement
        /// When it began, on the presenter's clock.
        package var began: Duration
        /// The newest retry notice of its request, if any.
        package var retry: RetryNotice?
    }

    /// A container with at least one mask on it.
    package struct Region: Sendable, Hashable, Identifiable {
        /// The container.
        package var container: ContainerInfo
        /// Its masks, oldest first.
        package var masks: [MaskEntry]

        /// The container's identifier.
        package var id: String { container.id }
        /// The mask shown: the newest.
        package var visibleMask: MaskEntry? { masks.last }
    }

    /// A transfer with a progress bar.
    package struct Transfer: Sendable, Hashable, Identifiable {
        /// Its request.
        package var activity: ActivityID
        /// The bar's label.
        package var label: String
        /// Where the bar is.
        package var container: ContainerInfo
        /// The direction shown: the upload's once there was one, else the download's; `nil`
        /// until the first progress.
        package var direction: TransferDirection?
        /// The newest progress; `nil` until the first.
        package var progress: TransferProgress?
        /// The newest count of an activity made of several requests (a batch); `nil` until
        /// the first, and for a single transfer.
        package var count: CountProgress?
        /// When it began, on the presenter's clock.
        package var began: Duration
        /// The newest retry notice, if any.
        package var retry: RetryNotice?

        /// Its request.
        package var id: ActivityID { activity }
    }

    /// What a presenter prints for good, above the live part.
    package enum Output: Sendable, Hashable {
        /// A warning or an information.
        case message(FeedbackMessage, container: ContainerInfo?)
        /// A line of a scrolling log, at once or after its region's masks.
        case logLine(String, log: ContainerInfo)
        /// A request announced it is retrying (a presenter that cannot redraw prints it).
        case retry(RetryNotice, label: String)
        /// A request's mask ended.
        case maskSummary(MaskPlacement, outcome: ActivityOutcome, elapsed: Duration)
        /// A transfer ended.
        case transferSummary(Transfer, outcome: ActivityOutcome, elapsed: Duration)
    }

    /// The masked containers, in the order their first mask arrived.
    package private(set) var regions: [Region] = []
    /// The running transfers, in the order they began.
    package private(set) var transfers: [Transfer] = []
    /// Log lines waiting for a region's masks to end, by the region's identifier.
    private var heldLines: [String: [(line: String, log: ContainerInfo)]] = [:]

    /// An empty scene.
    package init() {}

    /// Whether nothing is live: no mask, no transfer.
    package var isEmpty: Bool { regions.isEmpty && transfers.isEmpty }

    /// The region of a container, when it is masked.
    package func region(_ containerId: String) -> Region? {
        regions.first { $0.id == containerId }
    }

    /// How many log lines are held back in total.
    package var heldLineCount: Int { heldLines.values.reduce(0) { $0 + $1.count } }

    /// Takes every held log line out, in order, as outputs to print now: for a presenter that is
    /// finishing while a region is still masked, so that no line is lost.
    package mutating func drainHeldLines() -> [Output] {
        let held = heldLines.values.flatMap { $0 }
        heldLines = [:]
        return held.map { .logLine($0.line, log: $0.log) }
    }

    /// Applies one event.
    ///
    /// - Parameters:
    ///   - event: The event, in the order it was presented.
    ///   - now: The presenter's clock, for elapsed times.
    /// - Returns: What to print for good, in order.
    package mutating func apply(_ event: FeedbackEvent, at now: Duration) -> [Output] {
        switch event {
        case .maskBegan(let placement):
            let entry = MaskEntry(placement: placement, began: now)
            if let index = regions.firstIndex(where: { $0.id == placement.container.id }) {
                regions[index].masks.append(entry)
            } else {
                regions.append(Region(container: placement.container, masks: [entry]))
            }
            return []

        case .maskEnded(let activity, let outcome):
            guard let (regionIndex, maskIndex) = locateMask(activity) else { return [] }
            let entry = regions[regionIndex].masks.remove(at: maskIndex)
            var output: [Output] = [.maskSummary(entry.placement, outcome: outcome, elapsed: now - entry.began)]
            if regions[regionIndex].masks.isEmpty {
                let region = regions.remove(at: regionIndex)
                output += (heldLines.removeValue(forKey: region.id) ?? []).map { .logLine($0.line, log: $0.log) }
            }
            return output

        case .progressBegan(let activity, let label, let container):
            guard !transfers.contains(where: { $0.activity == activity }) else { return [] }
            transfers.append(Transfer(activity: activity, label: label, container: container, began: now))
            return []

        case .progressChanged(let activity, let direction, let progress):
            guard let index = transfers.firstIndex(where: { $0.activity == activity }) else { return [] }
            // Once a transfer has sent a body, its bar follows the upload: the small answer that
            // comes back would otherwise replace the upload's bytes and rate at the very end.
            if direction == .download, transfers[index].direction == .upload { return [] }
            transfers[index].direction = direction
            transfers[index].progress = progress
            return []

        case .progressCounted(let activity, let count):
            guard let index = transfers.firstIndex(where: { $0.activity == activity }) else { return [] }
            transfers[index].count = count
            return []

        case .progressEnded(let activity, let outcome):
            guard let index = transfers.firstIndex(where: { $0.activity == activity }) else { return [] }
            let transfer = transfers.remove(at: index)
            return [.transferSummary(transfer, outcome: outcome, elapsed: now - transfer.began)]

        case .retrying(let activity, let notice):
            var label: String?
            if let (regionIndex, maskIndex) = locateMask(activity) {
                regions[regionIndex].masks[maskIndex].retry = notice
                label = regions[regionIndex].masks[maskIndex].placement.appearance.text
            }
            if let index = transfers.firstIndex(where: { $0.activity == activity }) {
                transfers[index].retry = notice
                label = transfers[index].label
            }
            return label.map { [.retry(notice, label: $0)] } ?? []

        case .message(let message, let container):
            return [.message(message, container: container)]

        case .logLine(let line, let log):
            let target = log.maskTargetId ?? log.id
            guard region(target) != nil else { return [.logLine(line, log: log)] }
            heldLines[target, default: []].append((line, log))
            return []
        }
    }

    private func locateMask(_ activity: ActivityID) -> (Int, Int)? {
        for (regionIndex, region) in regions.enumerated() {
            if let maskIndex = region.masks.firstIndex(where: { $0.placement.activity == activity }) {
                return (regionIndex, maskIndex)
            }
        }
        return nil
    }
}
