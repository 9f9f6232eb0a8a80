import Feedback
