import UIKit
import Capacitor
import UserNotifications
#if canImport(FirebaseCore) && canImport(FirebaseMessaging)
import FirebaseCore
import FirebaseMessaging
#endif

@UIApplicationMain
class AppDelegate: UIResponder, UIApplicationDelegate {

    var window: UIWindow?

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        #if canImport(FirebaseCore) && canImport(FirebaseMessaging)
        // FirebaseApp.configure() stops the app when GoogleService-Info.plist is missing (apps/mobile/README.md).
        if Bundle.main.path(forResource: "GoogleService-Info", ofType: "plist") != nil {
            FirebaseApp.configure()
        }
        #endif
        registerPromptCategory()
        return true
    }

    /// The buttons of a prompt push: the server's FCM sender sets aps.category "PROMPT", and the action identifiers
    /// are the actionId the console reads (lib/push/native-push-device.ts). `.foreground` opens the app so that its
    /// signed-in session sends the answer; `.authenticationRequired` keeps a locked phone from starting a robot.
    private func registerPromptCategory() {
        // The console's own words (apps/web/src/locales: en, fi, se = Swedish, which iOS calls sv).
        let titles: [String: (confirm: String, skip: String)] = [
            "en": (confirm: "Confirm", skip: "Skip"),
            "fi": (confirm: "Vahvista", skip: "Ohita"),
            "sv": (confirm: "Bekräfta", skip: "Hoppa över"),
        ]
        let language = Locale.preferredLanguages.first.map { String($0.prefix(2)) } ?? "en"
        let title = titles[language] ?? (confirm: "Confirm", skip: "Skip")
        let options: UNNotificationActionOptions = [.foreground, .authenticationRequired]
        let prompt = UNNotificationCategory(
            identifier: "PROMPT",
            actions: [
                UNNotificationAction(identifier: "confirm", title: title.confirm, options: options),
                UNNotificationAction(identifier: "skip", title: title.skip, options: options),
            ],
            intentIdentifiers: [],
            options: []
        )
        UNUserNotificationCenter.current().setNotificationCategories([prompt])
    }

    /// Capacitor's push plugin hears the token only through these notifications. The server sends through FCM,
    /// so with the Firebase Messaging package in the app the APNs token is traded for an FCM registration token;
    /// without it the plain APNs token goes to the console, which FCM refuses (apps/mobile/README.md).
    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        #if canImport(FirebaseCore) && canImport(FirebaseMessaging)
        if FirebaseApp.app() != nil {
            Messaging.messaging().apnsToken = deviceToken
            Messaging.messaging().token { token, error in
                if let token = token {
                    NotificationCenter.default.post(name: .capacitorDidRegisterForRemoteNotifications, object: token)
                } else {
                    NotificationCenter.default.post(name: .capacitorDidFailToRegisterForRemoteNotifications, object: error)
                }
            }
            return
        }
        #endif
        NotificationCenter.default.post(name: .capacitorDidRegisterForRemoteNotifications, object: deviceToken)
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: Error) {
        NotificationCenter.default.post(name: .capacitorDidFailToRegisterForRemoteNotifications, object: error)
    }

    func applicationWillResignActive(_ application: UIApplication) {
        // Sent when the application is about to move from active to inactive state. This can occur for certain types of temporary interruptions (such as an incoming phone call or SMS message) or when the user quits the application and it begins the transition to the background state.
        // Use this method to pause ongoing tasks, disable timers, and invalidate graphics rendering callbacks. Games should use this method to pause the game.
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        // Use this method to release shared resources, save user data, invalidate timers, and store enough application state information to restore your application to its current state in case it is terminated later.
        // If your application supports background execution, this method is called instead of applicationWillTerminate: when the user quits.
    }

    func applicationWillEnterForeground(_ application: UIApplication) {
        // Called as part of the transition from the background to the active state; here you can undo many of the changes made on entering the background.
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        // Restart any tasks that were paused (or not yet started) while the application was inactive. If the application was previously in the background, optionally refresh the user interface.
    }

    func applicationWillTerminate(_ application: UIApplication) {
        // Called when the application is about to terminate. Save data if appropriate. See also applicationDidEnterBackground:.
    }

    func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]) -> Bool {
        // Called when the app was launched with a url. Feel free to add additional processing here,
        // but if you want the App API to support tracking app url opens, make sure to keep this call
        return ApplicationDelegateProxy.shared.application(app, open: url, options: options)
    }

    func application(_ application: UIApplication, continue userActivity: NSUserActivity, restorationHandler: @escaping ([UIUserActivityRestoring]?) -> Void) -> Bool {
        // Called when the app was launched with an activity, including Universal Links.
        // Feel free to add additional processing here, but if you want the App API to support
        // tracking app url opens, make sure to keep this call
        return ApplicationDelegateProxy.shared.application(application, continue: userActivity, restorationHandler: restorationHandler)
    }

}
