/** The page's words in the languages Plaza passes as `locale`; anything else gets English. */
export interface PageStrings {
  title: string;
  waiting: string;
  checking: string;
  notEmbedded: string;
  noSession: string;
  refused: string;
  unreachable: string;
  openedBy: (userId: string) => string;
  language: string;
  theme: string;
  localeName: string;
  themeNames: Record<'light' | 'dark', string>;
  premium: string;
  freePlan: string;
}

const en: PageStrings = {
  title: 'Sample app',
  waiting: 'Waiting for Plaza…',
  checking: 'Checking your session…',
  notEmbedded: 'Open this app from Plaza: it needs the session Plaza sends when it opens the app.',
  noSession: 'Plaza did not send a session in time. Reload the app from Plaza.',
  refused: 'Your Plaza session could not be verified. Reload the app from Plaza.',
  unreachable: 'The app server cannot be reached right now.',
  openedBy: (userId) => `Opened by ${userId}`,
  language: 'Language',
  theme: 'Theme',
  localeName: 'English',
  themeNames: { light: 'Light', dark: 'Dark' },
  premium: 'Premium',
  freePlan: 'Free plan',
};

const vi: PageStrings = {
  title: 'Ứng dụng mẫu',
  waiting: 'Đang chờ Plaza…',
  checking: 'Đang kiểm tra phiên đăng nhập…',
  notEmbedded: 'Hãy mở ứng dụng này từ Plaza: ứng dụng cần phiên đăng nhập mà Plaza gửi khi mở.',
  noSession: 'Plaza chưa gửi phiên đăng nhập kịp thời. Hãy mở lại ứng dụng từ Plaza.',
  refused: 'Không xác minh được phiên đăng nhập Plaza của bạn. Hãy mở lại ứng dụng từ Plaza.',
  unreachable: 'Hiện không kết nối được máy chủ của ứng dụng.',
  openedBy: (userId) => `Được mở bởi ${userId}`,
  language: 'Ngôn ngữ',
  theme: 'Giao diện',
  localeName: 'Tiếng Việt',
  themeNames: { light: 'Sáng', dark: 'Tối' },
  premium: 'Premium',
  freePlan: 'Gói miễn phí',
};

export const stringsFor = (locale: string): PageStrings => (locale === 'vi' ? vi : en);
